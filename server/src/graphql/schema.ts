import { builder } from "./builder.ts";
import "./types/enums.ts";
import "./types/units.ts";
import "./types/series-page.ts";
import "./types/file-pages.ts";
import "./types/monitoring.ts";
import "./types/series.ts";
import "./types/series-overview.ts";
import "./types/map.ts";
import "./types/book-starts.ts";
import "./types/scan.ts";
import "./types/events.ts";
import "./types/recycle.ts";
import "./types/downloads.ts";
import "./types/wanted.ts";
import "./types/audit.ts";
import "./types/verification.ts";
import "./types/assembly.ts";
import "./types/assembly-monitor.ts";
import "./types/sources.ts";
import "./types/source-settings.ts";
import "./types/indexer.ts";
import "./types/translations.ts";
import "./types/translation-progress.ts";
import "./types/translation-settings.ts";
import "./types/catalogues.ts";

/** The schema: every type file registers itself on the builder; this only assembles them. */
export const schema = builder.toSchema({ sortSchema: true });
