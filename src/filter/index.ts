/**
 * The filter DSL: items, filters as data, their text syntax, and views.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export type * as Ast from "./Ast.ts"

/**
 * @since 0.1.0
 */
export * as Filter from "./Filter.ts"

/**
 * @since 0.1.0
 */
export * as Item from "./Item.ts"

/**
 * @since 0.1.0
 */
export * as Syntax from "./Syntax.ts"

/**
 * @since 0.1.0
 */
export * as Views from "./Views.ts"
