export default { test: { include: ["scratch-*.test.ts"] } };
