import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: our packages by name, dependencies by package, else the file. */
export function ownerOf(url: string): string {
  if (!url) return "(native/vm)";
  const ours = /packages\/(core|store-json|store-postgres|store-mongo)\//.exec(url);
  if (ours) return `@message-store/${ours[1]}`;
  if (/\/bench\//.test(url) && !url.includes("node_modules")) return "bench harness";
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith("node:")) return "node internals";
  return url.split("/").slice(-2).join("/");
}

/**
 * Self time per function and per owner (package) of a `.cpuprofile`: the functions whose own
 * code, not their callees, used the CPU. Idle time and GC are listed separately.
 */
export function topFrames(path: string, limit = 25): string {
  const profile = JSON.parse(readFileSync(path, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  if (profile.samples && profile.timeDeltas) {
    for (let i = 0; i < profile.samples.length; i++) {
      const id = profile.samples[i]!;
      self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
    }
  } else {
    for (const n of profile.nodes) self.set(n.id, n.hitCount ?? 0);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const owner = new Map<string, number>();
  let idle = 0;
  for (const [id, t] of self) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") {
      idle += t;
      continue;
    }
    const file = url ? url.split("/").slice(-1)[0] : "";
    const key = `${functionName || "(anonymous)"}  ${file ? `${file}:${lineNumber + 1}` : ""}  [${ownerOf(url)}]`;
    fn.set(key, (fn.get(key) ?? 0) + t);
    const o = functionName.startsWith("(") ? functionName : ownerOf(url);
    owner.set(o, (owner.get(o) ?? 0) + t);
  }
  const busy = total - idle;
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
  const lines = [
    `${path}`,
    `wall ${((profile.endTime - profile.startTime) / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`,
    "",
    "self time by owner (% of busy):",
  ];
  for (const [o, t] of [...owner].sort((a, b) => b[1] - a[1]).slice(0, 15))
    lines.push(`  ${pct(t)}  ${o}`);
  lines.push("", `top ${limit} functions by self time (% of busy):`);
  for (const [k, t] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, limit))
    lines.push(`  ${pct(t)}  ${k}`);
  return lines.join("\n");
}

/** `path` itself, or every `.cpuprofile` in it when it is a directory. */
export function profileFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort()
    .map((f) => join(path, f));
}
