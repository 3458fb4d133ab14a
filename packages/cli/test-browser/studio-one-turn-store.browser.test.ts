import { join } from "node:path";
import { MessageStore } from "@message-store/core";
import "@message-store/json";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../test/support/cli.js";
import { type RunningStudio, startStudio } from "../test/support/studio.js";
import {
  HAS_CHROMIUM,
  launchChromium,
  type OtherLocalServer,
  startOtherLocalServer,
} from "./support/chromium.js";

const TURN_MESSAGE = "m-hostile-2";

/** Names written by model output: markup that would navigate or load if rendered as HTML. */
function hostileNames(trap: string) {
  return {
    tool: `<meta http-equiv=refresh content="0;url=${trap}/meta">`,
    model: `<img src=x onerror="location='${trap}/img'">`,
    title: `<img src="${trap}/title">`,
  };
}

/** A JSON store with one conversation whose tool, model and title are hostile markup. */
async function seedHostile(path: string, names: ReturnType<typeof hostileNames>): Promise<void> {
  const store = await MessageStore.initialize({ storage: "json", path });
  const now = Date.now() - 60_000;
  const base = { conversationId: "c-hostile", userId: "u-1" };
  try {
    await store.storeConversation({ id: "c-hostile", userId: "u-1", title: names.title });
    await store.storeMessages([
      { ...base, id: "m-hostile-1", role: "user", originalContent: "Look it up", timestamp: now },
      {
        ...base,
        id: TURN_MESSAGE,
        role: "assistant",
        originalContent: "Done.",
        timestamp: now + 2000,
        toolCalls: [{ toolCallId: "call-1", toolName: names.tool, arguments: { q: names.model } }],
      },
    ]);
    await store.storeTurnTrace({
      id: "t-hostile",
      messageId: TURN_MESSAGE,
      conversationId: "c-hostile",
      agentId: "agent",
      userId: "u-1",
      timestamp: now + 2000,
      totalTokens: 30,
      totalLatencyMs: 1500,
      llmCalls: [
        {
          purpose: "script_generation",
          model: names.model,
          promptTokens: 20,
          completionTokens: 10,
          latencyMs: 700,
          startedAt: now + 100,
          costUsd: 0.000012,
        },
      ],
      toolTraces: [{ toolName: names.tool, durationMs: 500 }],
    });
  } finally {
    await store.close();
  }
}

/**
 * A store of one conversation and one turn, whose tool, model and title are markup: what model
 * output and other local parties can do to the page, and the views a tiny store shows.
 */
describe.skipIf(!HAS_CHROMIUM)("studio in Chromium on a one-turn store with hostile names", () => {
  const tmp = tempDir();
  let browser: Browser;
  let studio: RunningStudio;
  let other: OtherLocalServer;
  let names: ReturnType<typeof hostileNames>;

  beforeAll(async () => {
    other = await startOtherLocalServer();
    names = hostileNames(other.origin);
    const path = join(tmp.dir, "hostile.json");
    await seedHostile(path, names);
    studio = await startStudio(["--store", `json:${path}`], { cwd: tmp.dir });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
    await other?.close();
    tmp.remove();
  });

  it("tool and model names written by a model show as text in the waterfall and its tooltips", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(studio.url);
    await page.goto(`${studio.origin}/turns/${TURN_MESSAGE}`);
    const chart = page.getByRole("img", { name: "waterfall of the turn" });
    await chart.locator("svg").waitFor();
    const labels = await chart.locator("svg text").allTextContents();
    expect(labels).toContain(`tool · ${names.tool}`);
    expect(labels).toContain(`script_generation · ${names.model}`);

    // Hover every bar: each tooltip shows its label literally and holds no element from it.
    // Boxes first: a hovered bar is redrawn in another colour.
    const bars = chart.locator('svg path[fill="#3b82f6"], svg path[fill="#10b981"]');
    expect(await bars.count()).toBe(2);
    const boxes = await Promise.all([0, 1].map((i) => bars.nth(i).boundingBox()));
    const tooltip = page.locator(".chart-tooltip");
    const shown = [`script_generation · ${names.model}`, `tool · ${names.tool}`];
    for (const [i, box] of boxes.entries()) {
      await page.mouse.move(box!.x + box!.width / 2, box!.y + box!.height / 2);
      await page.waitForTimeout(1000); // a meta refresh of 0 s would have fired by now
      expect(page.url(), `after hovering ${shown[i]}`).toBe(
        `${studio.origin}/turns/${TURN_MESSAGE}`,
      );
      expect(other.requests.map((r) => r.url)).toEqual([]);
      expect(await page.locator("meta[http-equiv], img").count()).toBe(0);
      await expect.poll(() => tooltip.textContent()).toContain(shown[i]);
    }

    // The turn page shows the same names as text, and its cost under $0.0001 with its digits.
    expect(await page.locator("table.grid").textContent()).toContain(names.model);
    expect(await page.locator(".stats").textContent()).toContain("$0.000012");
    await page.goto(`${studio.origin}/conversations/c-hostile`);
    await page.locator(".transcript article").first().waitFor();
    expect(await page.locator(".tool-call").textContent()).toContain(names.tool);
    expect(await page.locator(".conversation-header h1").textContent()).toBe(names.title);
    expect(await page.locator("meta[http-equiv], img").count()).toBe(0);
    expect(other.requests.map((r) => r.url)).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("labels counts with integers only, even for one turn (not 0, 0, 1, 1)", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(studio.url);
    await page.goto(`${studio.origin}/usage?window=24h`);
    await page.getByTestId("total-turns").waitFor();
    expect(await page.getByTestId("total-turns").textContent()).toBe("1");
    for (const chart of ["tokens", "turns"]) {
      const svg = page.getByRole("img", { name: `${chart} per hour` }).locator("svg");
      await svg.waitFor();
      // The value axis' labels: numbers, not in the bottom row (the time axis, whose day
      // numbers could repeat a value).
      const texts = await svg
        .locator("text")
        .evaluateAll((els) =>
          els.map((e) => ({ text: e.textContent ?? "", y: e.getBoundingClientRect().y })),
        );
      const bottom = Math.max(...texts.map((t) => t.y));
      const numbers = texts
        .filter((t) => /^\d[\d,]*$/.test(t.text) && t.y < bottom - 2)
        .map((t) => t.text);
      expect(numbers.length, chart).toBeGreaterThan(1);
      expect(new Set(numbers).size, `${chart}: ${numbers.join(", ")}`).toBe(numbers.length);
    }
    await page.close();
  });

  it("search tab: a text search box, results inline", async () => {
    const page = await browser.newPage();
    await page.goto(studio.url);
    await page.getByRole("link", { name: "Search", exact: true }).click();
    await page.getByLabel("search text").fill("LOOK it");
    await page.getByRole("button", { name: "Search" }).click();
    const results = page.getByRole("table", { name: "search results" }).locator("tbody tr");
    await results.first().waitFor();
    expect(await results.count()).toBe(1);
    expect(await results.first().locator("mark").textContent()).toBe("Look it");
    await expect.poll(() => page.url()).toMatch(/\/search\?q=LOOK\+it$/);
    await page.close();
  });

  it("an unknown conversation shows its error and nothing else", async () => {
    const page = await browser.newPage();
    await page.goto(studio.url);
    for (const tab of ["", "/context"]) {
      await page.goto(`${studio.origin}/conversations/no-such-conversation${tab}`);
      await page.getByRole("alert").first().waitFor();
      expect(await page.getByRole("alert").first().textContent()).toContain("no conversation");
      expect(await page.locator(".conversation-header h1").textContent()).toBe(
        "no-such-conversation",
      );
      await page.waitForLoadState("networkidle"); // no request loop
      const text = (await page.locator("main").textContent()) ?? "";
      for (const extra of ["No messages.", "End of the list.", "Context window (", "Transcript"]) {
        expect(text, `${tab}: ${extra}`).not.toContain(extra);
      }
    }
    await page.close();
  });

  it("gives its token to no other server on 127.0.0.1, and refuses what one captured", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(studio.url);
    await page.getByRole("link", { name: names.title }).waitFor(); // the token works
    expect(page.url()).toBe(`${studio.origin}/conversations`); // and left the address

    // The same browser visits another app on another local port.
    await page.goto(`${other.origin}/another-app`);
    const seen = other.requests.find((r) => r.url === "/another-app")!;
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers.authorization).toBeUndefined();
    expect(await page.evaluate("localStorage.length")).toBe(0);
    // Whatever it captured, replayed to the studio, opens nothing.
    const replayed = await fetch(`${studio.origin}/api/conversations`, {
      headers: Object.fromEntries(
        Object.entries({
          cookie: seen.headers.cookie,
          authorization: seen.headers.authorization,
        }).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
      ),
    });
    expect(replayed.status).toBe(401);

    // The studio itself still opens without the URL's token: it is kept for its origin.
    await page.goto(`${studio.origin}/conversations`);
    await page.getByRole("link", { name: names.title }).waitFor();
    // A browser that never opened the printed URL gets no data, only the way in.
    const stranger = await (await browser.newContext()).newPage();
    await stranger.goto(`${studio.origin}/conversations`);
    await stranger.getByText("open the URL that `message-store studio` printed").first().waitFor();
    expect(await stranger.getByRole("link", { name: names.title }).count()).toBe(0);
    await context.close();
  });
});
