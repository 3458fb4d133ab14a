import { createConnection } from "node:net";
import { describe, expect, it } from "vitest";
import { redisForTests, startRedisServer } from "../src/index.js";

/** Sends PING over a raw socket: the reply, or the connection error's code. */
function ping(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port) });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      resolve(data.toString().trim());
      socket.destroy();
    });
  });
}

describe("redis-server", () => {
  it("starts on a free port of its own (not 6379) and is gone after stop()", async () => {
    const server = await startRedisServer();
    expect(server.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(server.url).port).not.toBe("6379");
    expect(await ping(server.url)).toBe("+PONG");
    await server.stop();
    expect(await ping(server.url)).toBe("ECONNREFUSED");
    await server.stop(); // idempotent
  });

  it("redisForTests honours MESSAGE_STORE_REDIS_URL", async () => {
    const before = process.env.MESSAGE_STORE_REDIS_URL;
    process.env.MESSAGE_STORE_REDIS_URL = "redis://example.invalid:1";
    try {
      const redis = await redisForTests();
      expect(redis.url).toBe("redis://example.invalid:1");
      await redis.stop();
    } finally {
      if (before === undefined) delete process.env.MESSAGE_STORE_REDIS_URL;
      else process.env.MESSAGE_STORE_REDIS_URL = before;
    }
  });
});
