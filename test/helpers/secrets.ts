/**
 * Real secret shapes (the published formats of each provider, random values),
 * each embedded the way it shows up in a command line, an env assignment or an
 * error. Used by the unit test of `redact` and the integration test that greps
 * the store files. `secret` is what must never reach disk.
 */
export interface SecretCase {
  name: string;
  text: string;
  secret: string;
}

const rnd = (alphabet: string, n: number, seed: number) => {
  let s = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    out += alphabet[s % alphabet.length];
  }
  return out;
};
const AZ09 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';
const UP09 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

const gh = `ghp_${rnd(AZ09, 36, 1)}`;
const ghPat = `github_pat_11${rnd(UP09, 20, 2)}_${rnd(AZ09, 59, 3)}`;
const gho = `gho_${rnd(AZ09, 36, 4)}`;
const awsId = `AKIA${rnd(UP09, 16, 5)}`;
const awsSecret = rnd(AZ09 + '/+', 40, 6);
const openai = `sk-${rnd(AZ09, 48, 7)}`;
const openaiProj = `sk-proj-${rnd(AZ09 + '-_', 120, 8)}`;
const anthropic = `sk-ant-api03-${rnd(AZ09 + '-_', 93, 9)}`;
const slackBot = `xoxb-${rnd('0123456789', 12, 10)}-${rnd('0123456789', 13, 11)}-${rnd(AZ09, 24, 12)}`;
const slackHook = `https://hooks.slack.com/services/T${rnd(UP09, 8, 13)}/B${rnd(UP09, 8, 14)}/${rnd(AZ09, 24, 15)}`;
const jwt = `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.${rnd(AZ09 + '-_', 43, 16)}`;
const bearer = rnd(AZ09 + '._-', 40, 17);
const pem = `-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA${rnd(AZ09 + '+/', 60, 18)}\n${rnd(AZ09 + '+/', 64, 19)}\n-----END RSA PRIVATE KEY-----`;
const pemBody = pem.split('\n')[2];
const stripe = `sk_live_${rnd(AZ09, 24, 20)}`;
const google = `AIza${rnd(AZ09 + '-_', 35, 21)}`;
const npmTok = `npm_${rnd(AZ09, 36, 22)}`;
const glpat = `glpat-${rnd(AZ09 + '-_', 20, 23)}`;
const hf = `hf_${rnd(AZ09, 34, 24)}`;
const sendgrid = `SG.${rnd(AZ09 + '-_', 22, 25)}.${rnd(AZ09 + '-_', 43, 26)}`;
const pypi = `pypi-AgEIcHlwaS5vcmc${rnd(AZ09 + '-_', 60, 27)}`;
const dop = `dop_v1_${rnd(HEX, 64, 28)}`;
const urlPass = `P4ss${rnd(AZ09, 12, 29)}`;
const dbPass = `hunter2${rnd(AZ09, 10, 30)}`;
const flagPass = `s3cr3t${rnd(AZ09, 10, 31)}`;
const mysqlPass = `My${rnd(AZ09, 12, 32)}`;
const envToken = rnd(AZ09, 32, 33);
const basic = Buffer.from(`admin:${rnd(AZ09, 12, 34)}`).toString('base64');
const telegram = `${rnd('123456789', 9, 35)}:AA${rnd(AZ09 + '-_', 33, 36)}`;
const shopify = `shpat_${rnd(HEX, 32, 37)}`;
const jsonSecret = rnd(AZ09, 24, 38);
const queryToken = rnd(AZ09, 30, 39);

export const SECRET_CASES: SecretCase[] = [
  { name: 'GitHub classic token', text: `git clone https://x-access-token:${gh}@github.com/acme/app.git`, secret: gh },
  { name: 'GitHub token in env', text: `GITHUB_TOKEN=${gho} gh pr list`, secret: gho },
  { name: 'GitHub fine-grained PAT', text: `gh auth login --with-token ${ghPat}`, secret: ghPat },
  { name: 'AWS access key id', text: `aws configure set aws_access_key_id ${awsId}`, secret: awsId },
  { name: 'AWS secret access key', text: `AWS_SECRET_ACCESS_KEY=${awsSecret} aws s3 ls`, secret: awsSecret },
  { name: 'OpenAI key', text: `curl -H "x-api-key: ${openai}" https://api.openai.com/v1/models`, secret: openai },
  { name: 'OpenAI project key', text: `export OPENAI_API_KEY=${openaiProj}`, secret: openaiProj },
  { name: 'Anthropic key', text: `Error: invalid x-api-key ${anthropic}`, secret: anthropic },
  { name: 'Slack bot token', text: `slack-cli --bot ${slackBot}`, secret: slackBot },
  { name: 'Slack webhook', text: `curl -X POST ${slackHook} -d '{}'`, secret: slackHook.split('/').pop()! },
  { name: 'JWT', text: `curl -b session=${jwt} https://app.local/me`, secret: jwt.split('.')[2] },
  { name: 'Bearer token', text: `curl -H "Authorization: Bearer ${bearer}" https://api.local`, secret: bearer },
  { name: 'Basic auth header', text: `401 Unauthorized for Authorization: Basic ${basic}`, secret: basic },
  { name: 'RSA private key', text: `echo "${pem}" > key.pem`, secret: pemBody },
  { name: 'Stripe live key', text: `stripe login --api-key ${stripe}`, secret: stripe },
  { name: 'Google API key', text: `gcloud --key=${google} maps`, secret: google },
  { name: 'npm token', text: `npm config set //registry.npmjs.org/:_authToken ${npmTok}`, secret: npmTok },
  { name: 'GitLab PAT', text: `git push https://oauth2:${glpat}@gitlab.com/acme/app.git`, secret: glpat },
  { name: 'Hugging Face token', text: `huggingface-cli login --token ${hf}`, secret: hf },
  { name: 'SendGrid key', text: `SENDGRID=${sendgrid} node mail.js`, secret: sendgrid },
  { name: 'PyPI token', text: `twine upload -u __token__ -p ${pypi} dist/*`, secret: pypi },
  { name: 'DigitalOcean token', text: `doctl auth init -t ${dop}`, secret: dop },
  { name: 'password in a database URL', text: `psql postgres://app:${urlPass}@db.internal:5432/app`, secret: urlPass },
  { name: 'password= assignment', text: `DB_PASSWORD=${dbPass} npm run migrate`, secret: dbPass },
  { name: '--password flag', text: `mysqladmin --password ${flagPass} status`, secret: flagPass },
  { name: 'mysql -p glued value', text: `mysql -u root -p${mysqlPass} app`, secret: mysqlPass },
  { name: 'token env assignment', text: `export NETLIFY_AUTH_TOKEN='${envToken}'`, secret: envToken },
  {
    name: 'Telegram bot token',
    text: `curl https://api.telegram.org/bot${telegram}/getMe`,
    secret: telegram.split(':')[1],
  },
  { name: 'Shopify token', text: `shopify theme push --password ${shopify}`, secret: shopify },
  { name: 'secret in JSON', text: `{"client_secret": "${jsonSecret}", "id": 3}`, secret: jsonSecret },
  {
    name: 'token in a query string',
    text: `curl "https://api.local/items?access_token=${queryToken}&page=2"`,
    secret: queryToken,
  },
];
