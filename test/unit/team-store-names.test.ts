/** Repository names in the team store (issue 47): one form, so that a look-alike cannot stand beside the name it imitates. */
import { isNormalRepositoryName, normaliseRepositoryName } from '../../src/shared/team-store/repository.js';

test('NFKC, no invisible or control characters, the host lower-case; the path keeps its case', () => {
  expect(normaliseRepositoryName('github.com/acme/b\u200b')).toBe('github.com/acme/b');
  expect(normaliseRepositoryName('GitHub.com/Acme/Payments')).toBe('github.com/Acme/Payments');
  expect(normaliseRepositoryName('ｇｉｔｈｕｂ.com/acme/b')).toBe('github.com/acme/b');
  expect(normaliseRepositoryName('github.com/acme/\u202eb\u00ad')).toBe('github.com/acme/b');
  expect(normaliseRepositoryName('git.example.com:8443/acme/k')).toBe('git.example.com:8443/acme/k');
  expect(isNormalRepositoryName('github.com/acme/b\u200b')).toBe(false);
  expect(isNormalRepositoryName('github.com/acme/b')).toBe(true);
  expect(isNormalRepositoryName('')).toBe(false);
});
