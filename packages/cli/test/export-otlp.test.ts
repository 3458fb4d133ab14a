import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, runOk, tempDir, writeDataset } from "./support/cli.js";

interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** An OTLP/HTTP collector on a free port that keeps what it is sent. */
async function collector() {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(req.url === "/v1/traces" ? 200 : 404).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

type JsonSpan = {
  name: string;
  traceId: string;
  parentSpanId?: string;
  startTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
};
const spansOf = (r: Received): JsonSpan[] =>
  JSON.parse(r.body.toString("utf8")).resourceSpans[0].scopeSpans[0].spans;

describe("export --otlp", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  let dataset: ReturnType<typeof writeDataset>;
  let otlp: Awaited<ReturnType<typeof collector>>;

  beforeAll(async () => {
    dataset = writeDataset(cwd, 12, 6);
    await runOk(["import", dataset.path, "--store", "json:a.json"], { cwd });
    otlp = await collector();
  });
  afterAll(async () => {
    await otlp.close();
    tmp.remove();
  });

  it("sends every trace as an invoke_agent span over chat and execute_tool spans (JSON)", async () => {
    otlp.requests.length = 0;
    const { stderr } = await runOk(
      [
        "export",
        "--store",
        "json:a.json",
        "--otlp",
        otlp.url,
        "--otlp-protocol",
        "json",
        "--header",
        "Authorization: Bearer s3cret",
      ],
      { cwd },
    );
    const spans = otlp.requests.flatMap(spansOf);
    const roots = spans.filter((s) => s.parentSpanId === undefined);
    expect(roots).toHaveLength(dataset.counts.turnTraces);
    expect(roots.every((r) => r.name.startsWith("invoke_agent "))).toBe(true);
    expect(spans.some((s) => s.name === "execute_tool run_python")).toBe(true);
    const chat = spans.find((s) => s.name.startsWith("chat "))!;
    expect(chat.attributes.map((a) => a.key)).toEqual(
      expect.arrayContaining(["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"]),
    );
    expect(otlp.requests[0]!.headers.authorization).toBe("Bearer s3cret");
    expect(otlp.requests[0]!.headers["content-type"]).toBe("application/json");
    expect(stderr).toContain(
      `exported ${dataset.counts.turnTraces} traces as ${spans.length} spans`,
    );
    expect(stderr).not.toContain("s3cret");
  });

  it("sends protobuf by default, and --since keeps only newer traces", async () => {
    otlp.requests.length = 0;
    await runOk(["export", "--store", "json:a.json", "--otlp", otlp.url], { cwd });
    expect(otlp.requests.length).toBeGreaterThan(0);
    expect(otlp.requests[0]!.headers["content-type"]).toBe("application/x-protobuf");
    otlp.requests.length = 0;
    const { stderr } = await runOk(
      ["export", "--store", "json:a.json", "--otlp", otlp.url, "--since", "2100-01-01"],
      { cwd },
    );
    expect(stderr).toContain("exported 0 traces as 0 spans");
    expect(otlp.requests).toHaveLength(0);
  });

  it("refuses a header without a name and a collector that answers 404, naming no secret", async () => {
    const bad = await runCli(
      ["export", "--store", "json:a.json", "--otlp", otlp.url, "--header", "no colon"],
      { cwd },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--header");
    const refused = await runCli(
      [
        "export",
        "--store",
        "json:a.json",
        "--otlp",
        `${otlp.url}/wrong/v1/traces`,
        "--header",
        "x-key: hunter2",
      ],
      { cwd },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("HTTP 404");
    expect(refused.stderr).not.toContain("hunter2");
  });
});
