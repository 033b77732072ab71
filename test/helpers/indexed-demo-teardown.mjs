import { rmSync } from 'node:fs';

export default function teardown() {
  if (globalThis.__agentosIndexedDemo) rmSync(globalThis.__agentosIndexedDemo, { recursive: true, force: true });
}
