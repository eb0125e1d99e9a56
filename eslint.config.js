import js from '@eslint/js';
import graphqlPlugin from '@graphql-eslint/eslint-plugin';
import tseslint from 'typescript-eslint';

/** Where the GraphQL rules find the schema and the example operations they check each other against. */
const graphQLConfig = { schema: 'schema.graphql', documents: 'docs/operations/*.graphql' };

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'dist-bench/',
      'dist-bench-service/',
      'src/graphql/generated/',
      'examples/generated/',
      '.data/',
      'bench/results/',
      'test-artifacts/',
    ],
  },
  {
    files: ['**/*.{js,mjs,cjs,ts}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.graphql'],
    languageOptions: { parser: graphqlPlugin.parser, parserOptions: { graphQLConfig } },
    plugins: { '@graphql-eslint': graphqlPlugin },
  },
  {
    files: ['schema.graphql'],
    rules: {
      ...graphqlPlugin.configs['flat/schema-recommended'].rules,
      ...graphqlPlugin.configs['flat/schema-relay'].rules,
      // Every type, field, argument and input field says what it is, for GraphiQL and generated clients.
      '@graphql-eslint/require-description': [
        'error',
        { types: true, rootField: true, FieldDefinition: true, InputValueDefinition: true },
      ],
      // One-line descriptions are inline strings, longer ones blocks.
      '@graphql-eslint/description-style': 'off',
      // Objects a client cache normalizes have an `id`; pages, edges, payloads and values have none.
      '@graphql-eslint/strict-id-in-types': [
        'error',
        {
          exceptions: {
            types: [
              'PageInfo',
              'ReactionCount',
              'Suggestion',
              'Separation',
              'Session',
              'FanOutStatus',
              'RateLimit',
              'TagCount',
            ],
            suffixes: ['Connection', 'Edge', 'Payload'],
          },
        },
      ],
      // Lists page forwards (`first`/`after`; the home timeline backwards too), and short bounded lists are plain lists.
      '@graphql-eslint/relay-arguments': ['error', { includeBoth: false }],
      '@graphql-eslint/relay-edge-types': ['error', { listTypeCanWrapOnlyEdgeType: false }],
    },
  },
  {
    files: ['docs/operations/*.graphql'],
    rules: {
      ...graphqlPlugin.configs['flat/operations-recommended'].rules,
      // A thread's replies with their authors are 8 deep; the service allows MAX_QUERY_DEPTH (10) fields.
      '@graphql-eslint/selection-set-depth': ['error', { maxDepth: 8 }],
    },
  },
);
