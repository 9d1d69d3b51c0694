/** The audit dialogs run their mutations through the one helper of the web client. */
export { mutate } from "$lib/series/api";
