import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', 'fixtures/**', '.agentos/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-empty-function': 'off',
    },
  },
  // CommonJS: *.cjs, and bin/ (bin/package.json says so).
  { files: ['**/*.cjs', 'bin/**/*.js'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
