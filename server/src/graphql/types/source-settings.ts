/** GraphQL of the source settings (Suwayomi, drop folder): the same service as REST. */
import type { SourceSettingsView } from "../../services/acquisition/source-settings.ts";
import { builder } from "../builder.ts";

const AuthModeEnum = builder.enumType("SuwayomiAuthMode", {
  values: {
    NONE: { value: "none" },
    BASIC: { value: "basic", description: "HTTP basic auth (user name and password)." },
    SIMPLE_LOGIN: {
      value: "simple_login",
      description: "Suwayomi's login page: a session cookie, logged in again when it lapses.",
    },
    UI_LOGIN: {
      value: "ui_login",
      description: "Suwayomi's UI login: access and refresh tokens, renewed before they expire.",
    },
  } as const,
});

const SuwayomiSettingsRef = builder.objectRef<SourceSettingsView["suwayomi"]>("SuwayomiSettings").implement({
  fields: (t) => ({
    enabled: t.exposeBoolean("enabled"),
    url: t.string({ nullable: true, resolve: (s) => s.url }),
    auth: t.field({ type: AuthModeEnum, resolve: (s) => s.auth }),
    username: t.string({ nullable: true, resolve: (s) => s.username }),
    password: t.string({
      nullable: true,
      description: 'The mask "••••" when a password is stored; never the password.',
      resolve: (s) => s.password,
    }),
    passwordSet: t.exposeBoolean("passwordSet"),
    configured: t.exposeBoolean("configured", { description: "Enabled with a URL and complete credentials." }),
  }),
});

const SourceSettingsRef = builder.objectRef<SourceSettingsView>("SourceSettings").implement({
  fields: (t) => ({
    suwayomi: t.field({ type: SuwayomiSettingsRef, resolve: (v) => v.suwayomi }),
    dropFolderPath: t.string({ description: "DROP_FOLDER (read-only).", resolve: (v) => v.dropFolder.path }),
  }),
});

const SuwayomiSettingsInput = builder.inputType("SuwayomiSettingsInput", {
  fields: (t) => ({
    enabled: t.boolean(),
    url: t.string(),
    auth: t.field({ type: AuthModeEnum }),
    username: t.string(),
    password: t.string({ description: "A string sets it, null clears it, absent or the mask keeps it." }),
  }),
});

const SourceSettingsInput = builder.inputType("SourceSettingsInput", {
  fields: (t) => ({ suwayomi: t.field({ type: SuwayomiSettingsInput }) }),
});

builder.queryField("sourceSettings", (t) =>
  t.field({ type: SourceSettingsRef, resolve: (_r, _a, { services }) => services.sourceSettings.get() }),
);

builder.mutationField("updateSourceSettings", (t) =>
  t.field({
    type: SourceSettingsRef,
    args: { input: t.arg({ type: SourceSettingsInput, required: true }) },
    resolve: (_r, { input }, { services }) => services.sourceSettings.update({ suwayomi: input.suwayomi }),
  }),
);

const DownloadSettingsRef = builder.objectRef<{ languages: string[] }>("DownloadSettings").implement({
  description: "Languages chapters may be downloaded in besides each series' own (its offers become slots).",
  fields: (t) => ({ languages: t.exposeStringList("languages") }),
});

builder.queryField("downloadSettings", (t) =>
  t.field({
    type: DownloadSettingsRef,
    resolve: (_r, _a, { services }) => services.sourceSettings.downloadLanguages(),
  }),
);

builder.mutationField("updateDownloadSettings", (t) =>
  t.field({
    type: DownloadSettingsRef,
    args: { languages: t.arg.stringList({ required: true }) },
    resolve: (_r, { languages }, { services }) => services.sourceSettings.updateDownloadLanguages({ languages }),
  }),
);
