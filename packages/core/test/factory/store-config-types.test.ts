import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const TIMEOUT = { timeout: 60_000 };

/** The package's compiler options (tsconfig.json, which extends the repo's base). */
function compilerOptions(): ts.CompilerOptions {
  const path = fileURLToPath(new URL("../../tsconfig.json", import.meta.url));
  const { config } = ts.readConfigFile(path, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, dirname(path)).options;
}

/** The compiler's errors for one fixture, compiled alone as a program. */
function errorsOf(fixture: string): string[] {
  const file = fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url));
  const program = ts.createProgram([file], compilerOptions());
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("StoreConfig at compile time", () => {
  it(
    "with no adapter imported, initialize's error names the import that is missing",
    TIMEOUT,
    () => {
      const errors = errorsOf("no-adapter.ts");
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain("is not assignable to parameter of type");
      expect(errors[0]).toContain(
        "no storage adapter is imported: add import '@message-store/json' (or '@message-store/postgres'",
      );
    },
  );

  it(
    "with an adapter imported, its config compiles and other storage names do not",
    TIMEOUT,
    () => {
      expect(errorsOf("memory-adapter.ts")).toEqual([]);
    },
  );
});
