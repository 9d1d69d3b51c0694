/**
 * Sends a source CBZ as the raw request body. XMLHttpRequest rather than fetch: it reports upload
 * progress, and the browser sets Content-Length from the File (the endpoint refuses chunked bodies).
 */
import { RestProblem } from "../errors";

/** The REST job answer (snake_case); the page refetches the GraphQL list after it. */
export interface UploadedJob {
  id: string;
  status: string;
  target: { kind: string; number: string };
}

export function contentDisposition(fileName: string): string {
  // The name travels so the service can refuse a pack by its name (e.g. "X v01-05.cbz").
  return `attachment; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export function uploadSource(
  url: string,
  file: File,
  onprogress: (sent: number, total: number) => void,
  signal?: AbortSignal,
): Promise<UploadedJob> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.withCredentials = true;
    xhr.setRequestHeader("content-type", "application/zip");
    xhr.setRequestHeader("content-disposition", contentDisposition(file.name));
    xhr.upload.onprogress = (e) => onprogress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onerror = () => reject(new RestProblem("network", "The upload could not reach the service.", 0, {}));
    xhr.onabort = () => reject(new RestProblem("upload_aborted", "The upload was stopped.", 0, {}));
    xhr.onload = () => {
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(xhr.responseText) as Record<string, unknown>;
      } catch {
        // A non-JSON answer: the status says enough.
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(json as unknown as UploadedJob);
        return;
      }
      const code = typeof json.code === "string" ? json.code : xhr.status === 411 ? "length_required" : "internal";
      reject(new RestProblem(code, String(json.detail ?? json.title ?? `HTTP ${xhr.status}`), xhr.status, json));
    };
    signal?.addEventListener("abort", () => xhr.abort());
    xhr.send(file);
  });
}
