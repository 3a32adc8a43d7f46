/**
 * The official SDK's declarations (`sdk.d.ts`, as an import of the SDK from the tests resolves them) in a
 * TypeScript program, for the tests that hold our schemas against the SDK's types.
 */
import ts from "typescript"

const options: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext
}

export const sdkFile = ts.resolveModuleName("@anthropic-ai/claude-agent-sdk", import.meta.filename, options, ts.sys)
  .resolvedModule!.resolvedFileName
export const program = ts.createProgram([sdkFile], options)
export const checker = program.getTypeChecker()
