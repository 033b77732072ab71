import { spawn, type SpawnOptions } from 'node:child_process';

export interface Collected {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Spawn without blocking this process (a stand-in hub or a second client may be
 * served from it) and collect stdout and stderr until the child's streams close.
 * stdin is ignored unless `stdio` says otherwise.
 */
export function spawnCollect(command: string, args: string[], options: SpawnOptions = {}): Promise<Collected> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
