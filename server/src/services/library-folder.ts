/** The library folder's state for this service's library and recorded files (library/library-root.ts). */
import { libraryRootState } from "../library/library-root.ts";
import type { AppContext } from "./context.ts";

export const libraryFolderState = (ctx: Pick<AppContext, "config" | "repos">) =>
  libraryRootState(ctx.config.libraryRoot, () => ctx.repos.files.anyActive());
