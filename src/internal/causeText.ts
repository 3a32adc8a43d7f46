/**
 * A failure's cause as text for an error message: an Error's message, anything else as a string.
 */
export const causeText = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)
