import { NavLink, Outlet } from "react-router";
import { useInfo } from "../queries.js";
import { ErrorNote } from "./Status.js";

/** The frame of every page: the store, the mode (read-only or writes) and the navigation. */
export function Layout() {
  const info = useInfo();
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">message-store studio</span>
        <nav aria-label="views">
          <NavLink to="/conversations">Conversations</NavLink>
          <NavLink to="/turns">Turns</NavLink>
          <NavLink to="/usage">Usage</NavLink>
          <NavLink to="/search">Search</NavLink>
        </nav>
        {info.data && (
          <span className="store" title="the store this studio reads">
            {info.data.store}
            <span className={info.data.allowWrites ? "badge warn" : "badge"}>
              {info.data.allowWrites ? "writes allowed" : "read-only"}
            </span>
          </span>
        )}
      </header>
      <main>
        {info.error ? <ErrorNote error={info.error} /> : null}
        <Outlet />
      </main>
    </div>
  );
}
