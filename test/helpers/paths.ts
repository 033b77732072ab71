import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the slow tests find the repository, the provisioned model, the demo corpus and the CLI. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MODEL_DIR = path.join(REPO, '.agentos', 'models');
export const DEMO = path.join(REPO, 'fixtures', 'demo-repo');
export const BIN = path.join(REPO, 'bin', 'agentos.js');
