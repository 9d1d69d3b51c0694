import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** The generated Prisma client and types, the Prisma packages and the Pothos Prisma plugin. */
const PRISMA_PATTERN = {
  group: [
    "**/generated/prisma",
    "**/generated/prisma/**",
    "**/generated/pothos-types*",
    "@prisma/*",
    "prisma",
    "prisma/*",
    "@pothos/plugin-prisma",
  ],
  message: "Database access goes through server/src/repositories/: no Prisma client or types outside it.",
};

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/generated/**",
      "web/.svelte-kit/**",
      "web/build/**",
      "web/build-*/**",
      "web/build-*-kit/**",
      "data/**",
      "library/**",
      "**/*.js",
      "**/*.mjs",
      "vitest.config.ts",
      "web/vitest.config.ts",
      "web/vite.config.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/switch-exhaustiveness-check": [
        "error",
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
  {
    // One data-access boundary: the generated Prisma client, its types and the Prisma packages are
    // imported only under server/src/repositories/ (and server/src/db/, which builds the client and
    // runs the migrations). Everything else, tests included, goes through a repository.
    files: ["**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [PRISMA_PATTERN] }],
    },
  },
  {
    // The data-access layer, and the Prisma CLI's own configuration (migrations, schema path).
    files: ["server/src/repositories/**/*.ts", "server/src/db/**/*.ts", "server/prisma.config.ts"],
    rules: { "no-restricted-imports": "off" },
  },
  {
    // The one transport exception: the Pothos Prisma plugin is configured with the generated data model.
    files: ["server/src/graphql/builder.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              ...PRISMA_PATTERN,
              group: PRISMA_PATTERN.group.filter(
                (g) => g !== "@pothos/plugin-prisma" && g !== "**/generated/pothos-types*",
              ),
            },
          ],
        },
      ],
    },
  },
  {
    // The rule core is pure: no database, no file system, no network, no images, no archives.
    files: ["server/src/domain/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/generated/**", "@prisma/*", "prisma", "**/prisma/**"],
              message: "domain/ is pure: no Prisma.",
            },
            { group: ["fs", "node:fs", "fs/*", "node:fs/*"], message: "domain/ is pure: no file system." },
            {
              group: [
                "net",
                "node:net",
                "http",
                "node:http",
                "https",
                "node:https",
                "undici",
                "ws",
                "node:dgram",
                "dgram",
                "node:child_process",
                "child_process",
              ],
              message: "domain/ is pure: no network or processes.",
            },
            {
              group: ["sharp", "unzipper", "yazl", "hono", "graphql*", "@pothos/*"],
              message: "domain/ is pure: no images, archives or transport.",
            },
            { group: ["../*", "!../domain/*"], message: "domain/ imports only from domain/." },
          ],
        },
      ],
    },
  },
);
