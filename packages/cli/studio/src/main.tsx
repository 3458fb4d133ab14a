import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter, Navigate, RouterProvider } from "react-router";
import { Layout } from "./components/Layout.js";
import { ContextPage } from "./pages/ContextPage.js";
import { ConversationsPage } from "./pages/ConversationsPage.js";
import { SearchPage } from "./pages/SearchPage.js";
import { TranscriptPage } from "./pages/TranscriptPage.js";
import { TurnPage } from "./pages/TurnPage.js";
import { TurnsPage } from "./pages/TurnsPage.js";
import { UsagePage } from "./pages/UsagePage.js";
import "./styles.css";
import { adoptTokenFromUrl } from "./token.js";

adoptTokenFromUrl();

const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/conversations" replace /> },
      { path: "conversations", element: <ConversationsPage /> },
      { path: "conversations/:id", element: <TranscriptPage /> },
      { path: "conversations/:id/context", element: <ContextPage /> },
      { path: "turns", element: <TurnsPage /> },
      { path: "turns/:messageId", element: <TurnPage /> },
      { path: "usage", element: <UsagePage /> },
      { path: "search", element: <SearchPage /> },
      { path: "*", element: <p className="empty">No such page.</p> },
    ],
  },
]);

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
