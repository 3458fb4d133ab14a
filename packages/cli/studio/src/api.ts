import type { ApiError as ApiErrorBody } from "../../src/studio/api-types.js";
import { authorization } from "./token.js";

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

async function failure(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as ApiErrorBody | null;
  return new ApiError(
    response.status,
    body?.error.code ?? "HTTP",
    body?.error.message ?? `${response.status} ${response.statusText}`,
  );
}

async function read<T>(response: Response): Promise<T> {
  if (response.ok) return (await response.json()) as T;
  throw await failure(response);
}

/** `GET` a JSON endpoint (with the token, as every request). */
export async function getJson<T>(path: string, params?: Params): Promise<T> {
  return read<T>(
    await fetch(apiUrl(path, params), {
      headers: { Accept: "application/json", ...authorization() },
    }),
  );
}

/** `GET` an endpoint's answer as a file the browser saves, named as its `Content-Disposition` says. */
export async function download(path: string): Promise<void> {
  const response = await fetch(path, { headers: authorization() });
  if (!response.ok) throw await failure(response);
  const named = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "");
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement("a");
    link.href = url;
    link.download = named?.[1] ?? "download";
    link.click();
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}

/** `POST` JSON to an endpoint. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return read<T>(
    await fetch(path, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        ...authorization(),
      },
      body: JSON.stringify(body),
    }),
  );
}
