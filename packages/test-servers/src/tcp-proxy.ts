import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of a real server, for faults a server cannot be asked to produce on
 * demand: `partition()` stops moving bytes (and ends) in both directions, like a network that
 * drops everything, until `heal()` delivers what was held back, in order; `delayReplies(ms)` holds
 * each chunk from the server for `ms` before passing it on; `dropReplies()` discards every chunk
 * from the server (an answer lost on the way back) until `heal()`.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #links = new Set<{ client: Socket; upstream: Socket }>();
  readonly #held: (() => void)[] = [];
  #partitioned = false;
  #replyDelayMs = 0;
  #dropReplies = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Listens on a free port of 127.0.0.1 and forwards every connection to `host:port`. */
  static async start(host: string, port: number): Promise<TcpProxy> {
    // Half-open sockets: an end (FIN) from one side travels, or is held, like data.
    const server = createServer({ allowHalfOpen: true });
    const proxy = new TcpProxy(server);
    server.on("connection", (client) => proxy.#link(client, host, port));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  /** `url` (`postgres://…`, `mongodb://…`) rewritten to go through this proxy. */
  url(url: string): string {
    const u = new URL(url);
    u.hostname = "127.0.0.1";
    u.port = String(this.port);
    return u.toString();
  }

  partition(): void {
    this.#partitioned = true;
  }

  /** Discards what the server sends from now on, until `heal()`; the client's bytes still pass. */
  dropReplies(): void {
    this.#dropReplies = true;
  }

  heal(): void {
    this.#partitioned = false;
    this.#dropReplies = false;
    for (const deliver of this.#held.splice(0)) deliver();
  }

  delayReplies(ms: number): void {
    this.#replyDelayMs = ms;
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.#links) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #link(client: Socket, host: string, port: number): void {
    const upstream = connect({ port, host, allowHalfOpen: true });
    const link = { client, upstream };
    this.#links.add(link);
    const pass = (deliver: () => void, delayMs = 0) => {
      if (this.#partitioned) this.#held.push(deliver);
      else if (delayMs > 0) setTimeout(() => pass(deliver), delayMs);
      else deliver();
    };
    client.on("data", (chunk) => pass(() => upstream.write(chunk)));
    upstream.on("data", (chunk) => {
      if (!this.#dropReplies) pass(() => client.write(chunk), this.#replyDelayMs);
    });
    client.on("end", () => pass(() => upstream.end()));
    upstream.on("end", () => pass(() => client.end()));
    client.on("close", () => pass(() => upstream.destroy()));
    upstream.on("close", () => pass(() => client.destroy()));
    client.on("error", () => {});
    upstream.on("error", () => {});
  }
}
