import os from "node:os";

/** The machine, for the report header. */
export function describeMachine(): string[] {
  const cpus = os.cpus();
  const model = cpus[0]?.model?.trim() || "unknown CPU";
  return [
    `CPU: ${model}, ${cpus.length} logical cores${cpus[0]?.speed ? ` @ ${cpus[0].speed} MHz` : ""}`,
    `Memory: ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `OS: ${os.type()} ${os.release()} (${os.arch()})`,
    `Node.js: ${process.version}`,
  ];
}
