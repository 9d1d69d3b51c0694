/** The library folder's state for this service's library and recorded files (library/library-root.ts). */
import { libraryRootState, requireLibraryFolder } from "../library/library-root.ts";
import type { AppContext } from "./context.ts";

export const libraryFolderState = (ctx: Pick<AppContext, "config" | "repos">) =>
  libraryRootState(ctx.config.libraryRoot, () => ctx.repos.files.anyActive());

/** Refuses a write into the library while its folder is missing or an empty mount point (503). */
export const requireLibraryFolderOf = (ctx: Pick<AppContext, "config" | "repos">) =>
  requireLibraryFolder(ctx.config.libraryRoot, () => ctx.repos.files.anyActive());
