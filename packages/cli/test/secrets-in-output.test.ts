import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StudioInfo } from "../src/studio/api-types.js";
import { freshPostgres, runCli, runOk, tempDir, writeDataset } from "./support/cli.js";
import { apiCall, apiJson, startStudio } from "./support/studio.js";

/**
 * A password with "@", ":" and whitespace: a URL parser ends it at the last "@" of the authority,
 * so a redaction that stops at the first "@" or at whitespace shows part of it. The test server
 * trusts local connections, so any password is accepted.
 */
const PASSWORD = "p@ss w:rd-7Qz";
/** Every piece that must never be printed: the whole, raw and encoded, and its parts. */
const PIECES = ["p@ss", "ss w", "w:rd", "rd-7Qz", "7Qz", encodeURIComponent(PASSWORD)];

const EMBEDDER = "export async function embed(texts) { return texts.map((t) => [t.length, 1]); }\n";

/** The DSN of `base` with the password written raw (`raw`) or percent-encoded. */
function withPassword(base: string, form: "raw" | "encoded"): string {
  const url = new URL(base);
  const secret = form === "raw" ? PASSWORD : encodeURIComponent(PASSWORD);
  return `${url.protocol}//${url.username || "postgres"}:${secret}@${url.host}${url.pathname}`;
}

function expectNoPiece(label: string, text: string): void {
  for (const piece of PIECES)
    expect(text, `${label} shows ${JSON.stringify(piece)}`).not.toContain(piece);
}

describe.each(["raw", "encoded"] as const)(
  "a DSN password with @ and whitespace (%s) is never printed",
  (form) => {
    const tmp = tempDir();
    const cwd = tmp.dir;
    let env: Record<string, string>;

    beforeAll(async () => {
      env = { DSN: withPassword(await freshPostgres(`cli_secrets_${form}`), form) };
      writeFileSync(join(cwd, "embedder.mjs"), EMBEDDER);
    });
    afterAll(() => tmp.remove());

    it("in the summaries of import, export, migrate, embed and stats, the DSN given inline", async () => {
      const dataset = writeDataset(cwd, 3, 4);
      const dsn = env.DSN!;
      const outputs = {
        import: await runOk(["import", dataset.path, "--store", dsn], { cwd }),
        export: await runOk(["export", "--store", dsn, "-o", "out.ndjson"], { cwd }),
        stats: await runOk(["stats", "--store", dsn], { cwd }),
        embed: await runOk(["embed", "--store", dsn, "--module", "./embedder.mjs"], { cwd }),
        migrate: await runOk(["migrate", "--from", dsn, "--to", "json:copy.json"], { cwd }),
        back: await runOk(["migrate", "--from", "json:copy.json", "--to", dsn], { cwd }),
        failed: await runCli(["show", "conversation", "nope", "--store", dsn], { cwd }),
      };
      expect(outputs.import.stderr + outputs.import.stdout).toContain("postgres://postgres:***@");
      expect(outputs.migrate.stdout).toContain("from: postgres postgres://postgres:***@");
      expect(outputs.failed.code).toBe(1);
      for (const [command, { stdout, stderr }] of Object.entries(outputs)) {
        expectNoPiece(command, `${stdout}\n${stderr}`);
      }
    });

    it("in the studio's banner, /api/info and the page", async () => {
      const studio = await startStudio(["--store", "postgres:env:DSN"], { cwd, env });
      try {
        const info = await apiJson<StudioInfo>(studio, "/api/info");
        expect(info.store).toContain("postgres://postgres:***@");
        const page = await (await apiCall(studio, "/")).text();
        const missing = await (await apiCall(studio, "/api/conversations/nope")).text();
        expectNoPiece("studio", [studio.output(), JSON.stringify(info), page, missing].join("\n"));
      } finally {
        await studio.stop();
      }
    });
  },
);
