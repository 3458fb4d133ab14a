import { execFileSync } from "node:child_process";
import { describe, expect, inject, it } from "vitest";

/** The files and the manifest of a packed tarball. */
function contents(tarball: string): { files: string[]; read(file: string): string } {
  const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ""));
  return {
    files,
    read: (file) =>
      execFileSync("tar", ["-xzOf", tarball, `package/${file}`], { encoding: "utf8" }),
  };
}

const tarballs = Object.entries(inject("tarballs"));

describe.each(tarballs)("the published tarball of %s", (name, tarball) => {
  const { files, read } = contents(tarball);
  const manifest = JSON.parse(read("package.json"));

  it("ships the MIT LICENSE, the README and dist", () => {
    expect(files).toContain("LICENSE");
    expect(read("LICENSE")).toMatch(/^MIT License/);
    expect(files).toContain("README.md");
    expect(files.some((f) => f.startsWith("dist/"))).toBe(true);
  });

  it("names its repository folder, homepage and issue tracker", () => {
    expect(manifest.name).toBe(name);
    expect(manifest.license).toBe("MIT");
    expect(manifest.repository).toMatchObject({
      type: "git",
      url: expect.stringMatching(/^git\+https:\/\//),
    });
    expect(manifest.repository.directory).toBeTruthy();
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs?.url ?? manifest.bugs).toMatch(/^https:\/\//);
  });

  it("depends on core as a peer, with no workspace: range left", () => {
    expect(JSON.stringify(manifest)).not.toContain("workspace:");
    if (name !== "@message-store/core") {
      expect(manifest.peerDependencies?.["@message-store/core"]).toBeTruthy();
      expect(manifest.dependencies?.["@message-store/core"]).toBeUndefined();
    }
  });

  it("has README links that work on npm: absolute, or files inside the tarball", () => {
    const links = [...read("README.md").matchAll(/\]\(([^)\s]+)(?:\s[^)]*)?\)/g)].map((m) => m[1]!);
    const broken = links.filter(
      (link) =>
        !/^(https?:|mailto:|#)/.test(link) &&
        !files.includes(link.replace(/^\.\//, "").split("#")[0]!),
    );
    expect(broken).toEqual([]);
  });
});
