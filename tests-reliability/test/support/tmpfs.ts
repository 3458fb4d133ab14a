import { spawnSync } from "node:child_process";

/**
 * Mounts a tmpfs of `size` (e.g. `"1m"`) on `dir`. Returns false (with the reason) when this
 * sandbox does not allow it (not root, no CAP_SYS_ADMIN), so the caller can fall back.
 */
export function mountTmpfs(dir: string, size: string): { mounted: boolean; why: string } {
  if (process.env.RELIABILITY_FULL_DISK === "ulimit")
    return { mounted: false, why: "forced by RELIABILITY_FULL_DISK=ulimit" };
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir], {
    encoding: "utf8",
  });
  return { mounted: r.status === 0, why: r.status === 0 ? "" : `${r.stderr || r.error}`.trim() };
}

/** Unmounts `dir` (lazily, so a leftover open file cannot keep it mounted). */
export function unmount(dir: string): void {
  spawnSync("umount", ["-l", dir], { stdio: "ignore" });
}
