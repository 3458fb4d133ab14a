import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEFAULT_KEEP_CHARS, DEFAULT_MAX_CHARS } from "@message-store/core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgres, tempDir } from "../test/support/cli.js";
import {
  type RunningStudio,
  seedJsonStore,
  seedPostgresStore,
  startStudio,
} from "../test/support/studio.js";
import { REFUND, type StudioSeed } from "../test/support/studio-seed.js";
import { HAS_CHROMIUM, launchChromium } from "./support/chromium.js";

/** `UPDATE_SCREENSHOTS=1` writes the README's screenshots into docs/; otherwise a temp folder. */
const SHOTS =
  process.env.UPDATE_SCREENSHOTS === "1" ? resolve(import.meta.dirname, "../docs") : null;

const backends = [
  {
    name: "JSON file",
    screenshots: true,
    async open(dir: string) {
      const { spec, seed } = await seedJsonStore(dir);
      return { args: ["--store", spec], env: {}, seed };
    },
  },
  {
    name: "PostgreSQL",
    screenshots: false,
    async open() {
      const dsn = await freshPostgres("studio_browser");
      const seed = await seedPostgresStore(dsn);
      return { args: ["--store", "postgres:env:STUDIO_DSN"], env: { STUDIO_DSN: dsn }, seed };
    },
  },
];

describe.skipIf(!HAS_CHROMIUM).each(backends)("studio in Chromium on $name", (backend) => {
  const tmp = tempDir();
  let browser: Browser;
  let page: Page;
  let studio: RunningStudio;
  let seed: StudioSeed;
  /** Uncaught script errors of the page, checked by the last test. */
  const pageErrors: string[] = [];
  const shotDir = join(tmp.dir, "shots");

  async function shot(name: string) {
    await page.waitForLoadState("networkidle");
    const path = join(shotDir, `studio-${name}.png`);
    await page.screenshot({ path, fullPage: true });
    if (SHOTS && backend.screenshots) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, `studio-${name}.png`), fullPage: true });
    }
  }

  /** The message card of a transcript (or cell of the context view) for a message id. */
  const card = (id: string) => page.locator(`.transcript [data-message-id="${id}"]`);

  beforeAll(async () => {
    mkdirSync(shotDir, { recursive: true });
    const opened = await backend.open(tmp.dir);
    seed = opened.seed;
    studio = await startStudio([...opened.args, "--allow-writes"], {
      cwd: tmp.dir,
      env: opened.env,
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(studio.url);
  });
  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    tmp.remove();
  });

  it("conversations: every conversation, then one user's, most recent activity first", async () => {
    await expect.poll(() => page.url()).toMatch(/\/conversations$/); // token dropped from the URL
    await page.getByRole("link", { name: REFUND.title }).waitFor();
    const rows = page.locator("table.grid tbody tr");
    expect(await rows.count()).toBe(Math.min(50, seed.conversations.length));
    await expect.poll(() => page.getByText("every conversation, by id").count()).toBe(1);

    await page.getByLabel("User", { exact: true }).check();
    await page.getByLabel("user id").fill(REFUND.userId);
    await page.getByRole("button", { name: "Show" }).click();
    await page.getByText("most recent activity first").waitFor();
    const users = await rows.locator("td:nth-child(2)").allTextContents();
    expect(users.length).toBe(seed.conversations.filter((c) => c.userId === REFUND.userId).length);
    expect(new Set(users)).toEqual(new Set([REFUND.userId]));
    await shot("conversations");
  });

  it("text search: a message's words find its conversation, the match highlighted; deleted ones marked", async () => {
    await page.getByLabel("All", { exact: true }).check();
    await page.getByLabel("search text").fill("RUA augusta");
    await page.getByRole("button", { name: "Show" }).click();
    const results = page.getByRole("table", { name: "search results" }).locator("tbody tr");
    await results.first().waitFor();
    expect(await results.count()).toBe(1);
    expect(await results.first().locator("mark").textContent()).toBe("Rua Augusta");
    expect(await results.first().getByRole("link", { name: REFUND.title }).count()).toBe(1);
    await expect.poll(() => page.url()).toContain("q=RUA+augusta");
    await shot("text-search");

    await page.getByLabel("search text").fill("4111 1111");
    await page.getByRole("button", { name: "Show" }).click();
    await page.locator("mark", { hasText: "4111 1111" }).waitFor();
    expect(await results.count()).toBe(1);
    expect(await results.first().getByText("✕ deleted").count()).toBe(1);

    await page.getByLabel("search text").fill("rua augusta");
    await page.getByRole("button", { name: "Show" }).click();
    await page.locator("mark", { hasText: "Rua Augusta" }).waitFor();
  });

  it("transcript: roles in order, the flagged message marked, tool call paired with its result", async () => {
    await page.getByRole("link", { name: REFUND.title }).click();
    await page.locator(".transcript article").first().waitFor();
    const own = seed.messages.filter((m) => m.conversationId === REFUND.conversationId);
    const ids = await page
      .locator(".transcript article")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-message-id")));
    expect(ids).toEqual(own.map((m) => m.id));
    await expect.poll(() => card(REFUND.flaggedId).getByText("⚑ flagged").count()).toBe(1);
    expect(await page.getByText("⚑ flagged").count()).toBe(1);
    expect(await card(REFUND.deletedId).getByText("✕ deleted").count()).toBe(1);
    expect(await card(REFUND.deletedId).getAttribute("class")).toContain("deleted");
    expect(await page.locator(".transcript").getByText("✕ deleted").count()).toBe(1);
    // The call links its result; the result's content shows once, in its own message.
    expect(await card(`${REFUND.conversationId}-m3`).locator(".paired").textContent()).toContain(
      `result in ${REFUND.conversationId}-m3t`,
    );
    expect(await card(`${REFUND.conversationId}-m3t`).textContent()).toContain('"refundable":true');
    expect(await card(`${REFUND.conversationId}-m3`).textContent()).not.toContain(
      '"refundable":true',
    );
    expect(await card(`${REFUND.conversationId}-m3t`).textContent()).toContain("answers the call");
    const turns = seed.traces.filter((t) => t.conversationId === REFUND.conversationId);
    expect(await page.locator(".turn-line").count()).toBe(turns.length);

    expect(await page.getByText("intent: refund_request").count()).toBe(0);
    await page.getByLabel("Show enrichment").check();
    await page.getByText("intent: refund_request").waitFor();
    expect(await card(`${REFUND.conversationId}-m2`).textContent()).toContain("order #4512");
    await page.getByLabel("Show enrichment").uncheck();
    await shot("transcript");
  });

  it("turn: follows a conversation's turn to its waterfall of model calls and tool runs", async () => {
    await card(REFUND.toolTurnMessageId)
      .getByRole("link", { name: /waterfall/ })
      .click();
    await page.getByRole("heading", { name: "Waterfall" }).waitFor();
    const chart = page.getByRole("img", { name: "waterfall of the turn" });
    await chart.locator("svg").waitFor();
    const labels = await chart.locator("svg text").allTextContents();
    for (const label of [
      "turn",
      "enhancement · gpt-4o-mini",
      "script_generation · gpt-4o-mini",
      "tool · lookup_order",
    ]) {
      expect(labels).toContain(label);
    }
    expect(labels).toContain("2.65 s"); // the last agent_loop call's bar label
    const trace = seed.traces.find((t) => t.messageId === REFUND.toolTurnMessageId)!;
    expect(await page.locator(".stats").textContent()).toContain(
      trace.totalTokens.toLocaleString("en-US"),
    );
    expect(await page.locator(".tool-run").textContent()).toContain(
      "NameError: name 'shop' is not defined",
    );
    expect(await page.locator(".tool-run").textContent()).toContain('"refundable": true');
    expect(await page.locator("table.grid tbody tr").count()).toBe(trace.llmCalls!.length);
    await shot("turn");
  });

  it("usage: charts per hour, and a changed window changes the totals", async () => {
    await page.getByRole("link", { name: "Usage" }).click();
    await page.getByTestId("total-turns").waitFor();
    const legends = { tokens: "completion", cost: "cost", latency: "max", turns: "with errors" };
    for (const [chart, legend] of Object.entries(legends)) {
      const svg = page.getByRole("img", { name: `${chart} per hour` }).locator("svg");
      await svg.waitFor();
      expect(await svg.locator("text").allTextContents()).toContain(legend);
      expect(await svg.locator("path").count()).toBeGreaterThan(20);
    }
    const expected = (url: string) => {
      const q = new URL(url).searchParams;
      const since = Number(q.get("since"));
      const until = Number(q.get("until"));
      return seed.traces.filter((t) => t.timestamp >= since && t.timestamp < until);
    };
    const [day] = await Promise.all([
      page.waitForResponse((r) => r.url().includes("/api/usage?")),
      page.getByRole("button", { name: "last 24h" }).click(),
    ]);
    const inDay = expected(day.url());
    await expect
      .poll(() => page.getByTestId("total-turns").textContent())
      .toBe(String(inDay.length));
    expect(inDay.length).toBeLessThan(seed.traces.length);
    expect(await page.getByTestId("total-tokens").textContent()).toBe(
      inDay.reduce((s, t) => s + t.totalTokens, 0).toLocaleString("en-US"),
    );
    const [week] = await Promise.all([
      page.waitForResponse((r) => r.url().includes("/api/usage?")),
      page.getByRole("button", { name: "last 7d" }).click(),
    ]);
    await expect
      .poll(() => page.getByTestId("total-turns").textContent())
      .toBe(String(expected(week.url()).length));
    const expensive = page.getByRole("table", { name: "most expensive turns" });
    expect(await expensive.locator("tbody tr").count()).toBe(10);
    await shot("usage");
  });

  it("turns: newest first, and with errors only", async () => {
    await page.getByRole("link", { name: "Turns", exact: true }).click();
    const rows = page.getByRole("table", { name: "turns" }).locator("tbody tr");
    await rows.first().waitFor();
    // A click, not check(): the box is controlled by the URL, which React Router updates in a
    // transition, so right after the click it may still read unchecked (check() then throws).
    const errorsOnly = page.getByLabel("with errors only");
    await errorsOnly.click();
    await expect.poll(() => page.url()).toContain("errors=true");
    await expect.poll(() => errorsOnly.isChecked()).toBe(true);
    const failed = seed.traces.filter((t) => (t.errors ?? []).length > 0);
    // Polled as one condition: the table may render the unfiltered page again while refetching.
    await expect
      .poll(async () => {
        const errors = await rows.locator("td:last-child").allTextContents();
        return { rows: errors.length, allWithErrors: errors.every((e) => Number(e) > 0) };
      })
      .toEqual({ rows: failed.length, allWithErrors: true });
  });

  it("similar messages: from a transcript message to the closest ones", async () => {
    await page.goto(`${studio.origin}/conversations/${REFUND.conversationId}`);
    await card(`${REFUND.conversationId}-m2`).getByRole("link", { name: "Similar" }).click();
    const hits = page.getByRole("table", { name: "similar messages" }).locator("tbody tr");
    await hits.first().waitFor();
    expect(await hits.first().locator("td").first().textContent()).toBe("1.0000");
    await shot("search");
  });

  it("with writes allowed: a flagged message drops out of the context window", async () => {
    await page.goto(`${studio.origin}/conversations/${REFUND.conversationId}/context`);
    const contextColumn = page.locator(".side-by-side .pair > :first-child");
    await contextColumn.first().waitFor();
    const before = await contextColumn.evaluateAll((els) =>
      els.map((e) => e.getAttribute("data-message-id")),
    );
    expect(before).toContain(REFUND.toFlagId);
    expect(before).not.toContain(REFUND.flaggedId);
    expect(await page.locator(".cell.compressed").count()).toBe(1);
    // It starts where the library's `compress: true` does, and shows the assistant's tool call.
    expect(await page.getByLabel("max chars").inputValue()).toBe(String(DEFAULT_MAX_CHARS));
    expect(await page.getByLabel("keep chars").inputValue()).toBe(String(DEFAULT_KEEP_CHARS));
    const caller = contextColumn.and(
      page.locator(`[data-message-id="${REFUND.conversationId}-m3"]`),
    );
    expect(await caller.locator(".tool-call").textContent()).toBe(
      '→ lookup_order({"orderId":"4512"})',
    );
    await shot("context");

    await page.getByRole("link", { name: "Transcript" }).click();
    await card(REFUND.toFlagId).getByRole("button", { name: "Flag" }).click();
    await card(REFUND.toFlagId).getByText("⚑ flagged").waitFor();
    await page.getByRole("link", { name: "Context window" }).click();
    // One polled condition: while the page loads the column is empty, and the cached window of
    // the first visit (with the message) may show until the refetch lands.
    await expect
      .poll(async () => {
        const ids = await contextColumn.evaluateAll((els) =>
          els.map((e) => e.getAttribute("data-message-id")),
        );
        const text = (await page.locator(".side-by-side").textContent()) ?? "";
        return {
          loaded: ids.includes(REFUND.flaggedId) === false && ids.length > 0,
          flaggedShown: ids.includes(REFUND.toFlagId) || text.includes(REFUND.toFlagText),
        };
      })
      .toEqual({ loaded: true, flaggedShown: false });
  });

  it("with writes allowed: soft-deletes a conversation, marked everywhere, then restores it", async () => {
    const target = seed.conversations.find((c) => c.id !== REFUND.conversationId)!;
    await page.goto(`${studio.origin}/conversations/${encodeURIComponent(target.id)}`);
    await page.locator(".transcript article").first().waitFor();
    const header = page.locator(".conversation-header h1");
    expect(await header.getByText("✕ deleted").count()).toBe(0);
    // The export is fetched with the token (a plain link would carry none) and saved.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export NDJSON" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^conversation-.*\.ndjson$/);
    const exported = readFileSync((await download.path())!, "utf8")
      .trimEnd()
      .split("\n");
    expect(JSON.parse(exported[0]!)).toMatchObject({ type: "header" });
    expect(JSON.parse(exported.at(-1)!)).toMatchObject({ type: "footer", conversations: 1 });
    await page.getByRole("button", { name: "Delete" }).click();
    await header.getByText("✕ deleted").waitFor();
    await expect
      .poll(() => page.locator(".transcript article.deleted").count())
      .toBe(seed.messages.filter((m) => m.conversationId === target.id).length);
    await page.getByRole("link", { name: "Context window" }).click();
    await page.getByText("Context window (0 messages)").waitFor();

    await page.goto(`${studio.origin}/conversations?user=${encodeURIComponent(target.userId)}`);
    const row = page.locator("table.grid tbody tr", { hasText: target.id });
    await row.getByText("✕ deleted").waitFor();
    await row.getByRole("link", { name: target.title! }).click();
    await page.getByRole("button", { name: "Restore" }).click();
    await page.getByRole("button", { name: "Delete" }).waitFor();
    expect(await header.getByText("✕ deleted").count()).toBe(0);
    await expect.poll(() => page.locator(".transcript article.deleted").count()).toBe(0);
  });

  it("raised no script error in any view", () => {
    expect(pageErrors).toEqual([]);
  });
});

describe.skipIf(!HAS_CHROMIUM)("studio in Chromium, read-only", () => {
  it("offers no write action and the server refuses one", async () => {
    const tmp = tempDir();
    const { spec } = await seedJsonStore(tmp.dir);
    const studio = await startStudio(["--store", spec], { cwd: tmp.dir });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(studio.url);
      await page.getByText("read-only").waitFor();
      await page.goto(`${studio.origin}/conversations/${REFUND.conversationId}`);
      await page.locator(".transcript article").first().waitFor();
      expect(await page.getByRole("button", { name: "Flag" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Export NDJSON" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Delete" }).count()).toBe(0);
      // With the token, as the page sends it: refused because the studio is read-only.
      const headers = {
        "Content-Type": "application/json",
        Authorization: `Bearer ${studio.token}`,
      };
      const status = await page.evaluate(
        async ({ id, headers }) => {
          const r = await fetch(`/api/actions/messages/${id}/flag`, {
            method: "POST",
            headers,
            body: JSON.stringify({ flagged: true }),
          });
          return r.status;
        },
        { id: REFUND.toFlagId, headers },
      );
      expect(status).toBe(403);
      const deleteStatus = await page.evaluate(
        async ({ id, headers }) => {
          const r = await fetch(`/api/actions/conversations/${id}/delete`, {
            method: "POST",
            headers,
            body: "{}",
          });
          return r.status;
        },
        { id: REFUND.conversationId, headers },
      );
      expect(deleteStatus).toBe(403);
      const anonymous = await (await browser.newContext()).newPage();
      await anonymous.goto(`${studio.origin}/conversations`);
      await anonymous
        .getByText("open the URL that `message-store studio` printed")
        .first()
        .waitFor();
      expect(await anonymous.getByRole("link", { name: REFUND.title }).count()).toBe(0);
    } finally {
      await browser.close();
      await studio.stop();
      tmp.remove();
    }
  });
});
