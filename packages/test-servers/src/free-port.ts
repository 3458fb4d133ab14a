import { createServer } from "node:net";

/**
 * Returns a TCP port on 127.0.0.1 that was free a moment ago: listens on port 0, reads the
 * assigned port and closes the listener. Another process may still grab it before you do.
 */
export function findFreePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("findFreePort: listener has no TCP address"));
        return;
      }
      server.close((err) => (err ? reject(err) : resolve(address.port)));
    });
  });
}
