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

  it("leaves text without secrets unchanged", () => {
    for (const s of ["", "postgres://host/db", "postgres://user@host/db", "no secrets here"]) {
      expect(redactSecrets(s)).toBe(s);
    }
  });
});
