import { describe, expect, it } from "vitest";
import { redactSecrets } from "../src/index.js";

describe("redactSecrets", () => {
  it.each([
    ["postgres://u:pw@h/db", "postgres://u:***@h/db"],
    [
      "postgresql://user:p%40ss@host:5432/db?sslmode=require",
      "postgresql://user:***@host:5432/db?sslmode=require",
    ],
    [
      "mongodb+srv://admin:Secr3t@cluster0.x.net/?retryWrites=true",
      "mongodb+srv://admin:***@cluster0.x.net/?retryWrites=true",
    ],
    ["MONGODB://A:B@h", "MONGODB://A:***@h"],
    ["two: pg://a:one@h and pg://b:two@k", "two: pg://a:***@h and pg://b:***@k"],
    ["password=hunter2 host=x", "password=*** host=x"],
    ["PASSWORD = hunter2;", "PASSWORD = ***;"],
    ["pwd:abc,next", "pwd:***,next"],
    ["passwd=x&user=y", "passwd=***&user=y"],
    ['password="with spaces inside" host=h', "password=*** host=h"],
    ["password='single quoted' x", "password=*** x"],
    [
      "token=abc.def api_key=k1 api-key=k2 apikey=k3 secret=s",
      "token=*** api_key=*** api-key=*** apikey=*** secret=***",
    ],
  ])("%s → %s", (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  // A URL parser ends the password at the LAST "@" of the authority: "@", ":" and whitespace may
  // be part of it, raw or percent-encoded.
  const PASSWORD = "p@ss w:rd";
  const ENCODED = encodeURIComponent(PASSWORD);
  /** Every piece of the password that must not show: the whole, and the parts around "@" and " ". */
  const PIECES = ["p@ss", "ss w", "w:rd", "ss%20w", ENCODED];

  it.each([
    [`postgres://app:${PASSWORD}@db:5432/app`, "postgres://app:***@db:5432/app"],
    [`postgres://app:${PASSWORD}@db`, "postgres://app:***@db"],
    [
      `error at postgres://app:${PASSWORD}@db/app: timeout`,
      "error at postgres://app:***@db/app: timeout",
    ],
    [`postgres://app:${ENCODED}@db/app`, "postgres://app:***@db/app"],
    [
      `mongodb://app:${PASSWORD}@h1:27017,h2:27017/db?x=1`,
      "mongodb://app:***@h1:27017,h2:27017/db?x=1",
    ],
    [
      `from pg://a:${PASSWORD}@h/x to pg://b:${PASSWORD}@k/y`,
      "from pg://a:***@h/x to pg://b:***@k/y",
    ],
    [`password='${PASSWORD}' host=db`, "password=*** host=db"],
    [`password="${PASSWORD}" host=db`, "password=*** host=db"],
    [`password='it\\'s ${PASSWORD}' host=db`, "password=*** host=db"],
    [`PGPASSWORD=${ENCODED} psql`, "PGPASSWORD=*** psql"],
    [`db_password: ${ENCODED}`, "db_password: ***"],
    [`{"password":"${PASSWORD}","user":"app"}`, '{"password":"***","user":"app"}'],
    [`{"db_password" : "${PASSWORD} \\" more"}`, '{"db_password" : "***"}'],
    [
      JSON.stringify({ dsn: `postgres://app:${PASSWORD}@db/app`, pool_max: 4 }),
      '{"dsn":"postgres://app:***@db/app","pool_max":4}',
    ],
  ])("hides a password with @, : and whitespace: %s", (input, expected) => {
    const redacted = redactSecrets(input);
    expect(redacted).toBe(expected);
    for (const piece of PIECES) expect(redacted).not.toContain(piece);
  });

  it("when unsure where a URL password ends, hides too much rather than too little", () => {
    expect(redactSecrets("postgres://u:pw@host failed, mail ops@example.com")).toBe(
      "postgres://u:***@example.com",
    );
  });

  it("leaves text without secrets unchanged", () => {
    for (const s of [
      "",
      "postgres://host/db",
      "postgres://user@host/db",
      "postgres://host:5432/db (user ops@example.com)",
      "no secrets here",
      "totalTokens: 1500, promptTokens=1300",
      'password authentication failed for user "app"',
      "at file:///app/node_modules/x/index.js:12:5",
    ]) {
      expect(redactSecrets(s)).toBe(s);
    }
  });
});
