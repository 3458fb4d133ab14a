import { useQuery } from "@tanstack/react-query";
import type { AgentList, StudioInfo } from "../../src/studio/api-types.js";
import { getJson } from "./api.js";

/** What the server allows and which store it shows (read once). */
export function useInfo() {
  return useQuery({
    queryKey: ["info"],
    queryFn: () => getJson<StudioInfo>("/api/info"),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Agents seen in the newest turns, for the filters. */
export function useAgents() {
  return useQuery({
    queryKey: ["agents"],
    queryFn: () => getJson<AgentList>("/api/agents"),
    staleTime: 60_000,
  });
}
