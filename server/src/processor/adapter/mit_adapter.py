"""Adapter between the reference processor and manga-image-translator (protocol: job JSON on stdin,
NDJSON events on fd 3, logs on stdout/stderr).

The job JSON carries the AI endpoint, model and key: they are handed to the engine in-process
(module attributes of manga_translator.translators.keys and the custom_openai translator), never
through argv or the environment. The engine's translation chains and language-skip rules are
cleared so they cannot override the job's destination language.
"""
import asyncio
import json
import os
import shutil
import sys

# ISO 639-1 -> manga-image-translator language codes (VALID_LANGUAGES).
MIT_LANGUAGES = {
    "zh": "CHS", "cs": "CSY", "nl": "NLD", "en": "ENG", "fr": "FRA", "de": "DEU", "hu": "HUN",
    "it": "ITA", "ja": "JPN", "ko": "KOR", "pl": "PLK", "pt": "PTB", "ro": "ROM", "ru": "RUS",
    "es": "ESP", "tr": "TRK", "uk": "UKR", "vi": "VIN", "ar": "ARA", "sr": "SRP", "hr": "HRV",
    "th": "THA", "id": "IND", "fil": "FIL",
}


def main():
    events = os.fdopen(3, "w", buffering=1)

    def emit(**event):
        events.write(json.dumps(event, ensure_ascii=False) + "\n")
        events.flush()

    job = json.loads(sys.stdin.read())
    key = job["ai"]["api_key"]

    def fail(code, message):
        emit(event="error", code=code, message=str(message).replace(key, "<redacted>"))
        return 3

    target = MIT_LANGUAGES.get(job["target_language"].split("-")[0])
    if target is None:
        return fail("target_unsupported", "manga-image-translator has no code for " + job["target_language"])

    sys.path.insert(0, job["engine_root"])
    try:
        import manga_translator
        from manga_translator.config import Config
        keys = __import__("manga_translator.translators.keys", fromlist=["keys"])
    except Exception as e:  # the engine is missing or broken: a clear job error
        return fail("engine_unavailable", "cannot import manga_translator from the engine root: %s" % e)

    # The job's endpoint, model and key, in-process only.
    for module_name in ("manga_translator.translators.keys", "manga_translator.translators.custom_openai"):
        module = sys.modules.get(module_name)
        if module is None:
            try:
                module = __import__(module_name, fromlist=["x"])
            except Exception:
                continue
        module.CUSTOM_OPENAI_API_BASE = job["ai"]["base_url"]
        module.CUSTOM_OPENAI_MODEL = job["ai"]["model"]
        module.CUSTOM_OPENAI_API_KEY = key

    settings = dict(job.get("config") or {})
    settings.pop("adapter", None)
    config = Config(**settings)
    tc = config.translator
    tc.translator = "custom_openai"
    tc.target_lang = target
    # Nothing may override the destination or skip regions by language.
    tc.translator_chain = None
    tc.selective_translation = None
    tc.skip_lang = None
    tc.no_text_lang_skip = True
    if hasattr(tc, "_translator_gen"):
        tc._translator_gen = None

    params = dict((job.get("config") or {}).get("adapter", {}).get("params", {}))
    params["use_gpu"] = not job.get("cpu", False)
    translator = manga_translator.MangaTranslator(params)

    try:
        from PIL import Image
    except ImportError:
        Image = None

    async def run():
        total = len(job["pages"])
        for n, page in enumerate(job["pages"]):
            emit(event="progress", index=page["index"], pages_done=n, pages_total=total)
            image = Image.open(page["input"]) if Image else page["input"]
            ctx = await translator.translate(image, config)
            result = getattr(ctx, "result", None)
            if result is None:
                shutil.copyfile(page["input"], page["output"])
            else:
                if Image and page["output"].lower().endswith((".jpg", ".jpeg")) and getattr(result, "mode", "RGB") not in ("RGB", "L"):
                    result = result.convert("RGB")
                result.save(page["output"])
            regions = [
                {"source": str(getattr(r, "text", "") or ""), "translation": str(getattr(r, "translation", "") or "")}
                for r in (getattr(ctx, "text_regions", None) or [])
            ]
            emit(event="page_done", index=page["index"], output=page["output"], regions=regions)

    try:
        asyncio.run(run())
    except Exception as e:
        return fail("engine_failed", "%s: %s" % (type(e).__name__, e))
    emit(event="done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
