import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/** The TypeScript examples (```ts blocks) of a README, in order. */
export function readmeExamples(readmePath: string): string[] {
  return [...readFileSync(readmePath, "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** How {@link compileExamples} compiles. */
export interface CompileExamplesOptions {
  /** The package whose `tsconfig.json` gives the compiler options; examples are placed in it. */
  root: string;
  /** Module names mapped to declaration files (`ai` to one major, the bridge to its build). */
  paths?: Record<string, string[]>;
  /** Declarations the examples take from outside the package (a provider not installed). */
  prelude?: string;
}

/**
 * The compiler's errors for `examples`, each compiled as a module of its own, as a user's
 * program would compile them (with the package's compiler options; `[]` when they compile).
 */
export function compileExamples(
  examples: readonly string[],
  options: CompileExamplesOptions,
): string[] {
  const { root } = options;
  const configPath = join(root, "tsconfig.json");
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const compilerOptions: ts.CompilerOptions = {
    ...ts.parseJsonConfigFileContent(config, ts.sys, root).options,
    noEmit: true,
    ...(options.paths ? { paths: options.paths } : {}),
  };
  const files = new Map<string, string>();
  if (options.prelude) files.set(join(root, "readme-prelude.d.ts"), options.prelude);
  for (const [i, code] of examples.entries()) files.set(join(root, `readme-example-${i}.ts`), code);
  const host = ts.createCompilerHost(compilerOptions);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => files.has(f) || fileExists.call(host, f);
  host.readFile = (f) => files.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, language, ...rest) =>
    files.has(f)
      ? ts.createSourceFile(f, files.get(f)!, language)
      : getSourceFile.call(host, f, language, ...rest);
  const program = ts.createProgram([...files.keys()], compilerOptions, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.replace(root, "")}:${d.start}` : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}
