import { connect } from "node:net";

/** The request code of PostgreSQL's CancelRequest message (protocol 3.0, "1234 5678"). */
const CANCEL_REQUEST_CODE = 80_877_102;

/** Where a backend runs and the key that lets another connection cancel its statement. */
export interface BackendKey {
  /** TCP host or socket directory (starting with `/`), and port, of the server. */
  host: string;
  port: number;
  /** The backend's process id and the secret key it sent at connect (`BackendKeyData`). */
  pid: number;
  secretKey: number;
}

/**
 * Sends PostgreSQL's CancelRequest for the statement running on `backend`, over a connection of
 * its own (what `psql` does on Ctrl-C, and what `pg_cancel_backend` does from SQL): it needs no
 * login and never counts against `max_connections`. The server answers by closing the socket once
 * it has signalled the backend, so the promise resolves `true` when the server closed it, `false`
 * on a socket error or when nothing happened within `timeoutMs` (a frozen or unreachable server).
 * A cancel is a request: a statement that already finished is not affected.
 */
export function sendCancelRequest(backend: BackendKey, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = backend.host.startsWith("/")
      ? connect(`${backend.host}/.s.PGSQL.${backend.port}`)
      : connect(backend.port, backend.host);
    let done = false;
    const finish = (confirmed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(confirmed);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on("connect", () => {
      const packet = Buffer.alloc(16);
      packet.writeInt32BE(16, 0);
      packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      packet.writeInt32BE(backend.pid, 8);
      packet.writeInt32BE(backend.secretKey, 12);
      socket.write(packet);
    });
    socket.on("end", () => finish(true));
    socket.on("close", (hadError) => finish(!hadError));
    socket.on("error", () => finish(false));
  });
}
