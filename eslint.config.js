import js from "@eslint/js";
import tseslint from "typescript-eslint";

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
