import type { ApiError as ApiErrorBody } from "../../src/studio/api-types.js";

/** An error answer of the studio's API. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Params = Record<string, string | number | boolean | null | undefined>;

/** `path` with the given query parameters (absent, null and empty ones left out). */
export function apiUrl(path: string, params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const query = search.toString();
  return query === "" ? path : `${path}?${query}`;
}

async function read<T>(response: Response): Promise<T> {
  if (response.ok) return (await response.json()) as T;
  const body = (await response.json().catch(() => null)) as ApiErrorBody | null;
  throw new ApiError(
    response.status,
    body?.error.code ?? "HTTP",
    body?.error.message ?? `${response.status} ${response.statusText}`,
  );
}

/** `GET` a JSON endpoint (the token travels in the cookie the printed URL set). */
export async function getJson<T>(path: string, params?: Params): Promise<T> {
  return read<T>(await fetch(apiUrl(path, params), { headers: { Accept: "application/json" } }));
}

/** `POST` JSON to an endpoint. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return read<T>(
    await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    }),
  );
}
