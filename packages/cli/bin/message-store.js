#!/usr/bin/env node
// The `message-store` command. This file is committed, not built, so that installing the
// workspace can link the bin before `dist/` exists; it runs the built CLI.
import { main } from "../dist/index.js";

await main();
