"""A stand-in for manga-image-translator: just the surface the adapter uses (MangaTranslator,
config.Config, translators.keys). It "translates" by copying the page and reporting fixed texts.
The engine configuration's "standin" object steers it: fail_at / hang_at (page number, 0-based,
counted per run), record_file (what it received, written WITHOUT the key: only booleans and the
key's sha256), texts ([source, translation] pairs).
"""
import asyncio
import hashlib
import json
import os
import shutil
import sys
import time

DEFAULT_TEXTS = [[
    "Je ne sais pas où se trouve la maison de mon ami, mais nous allons la chercher ensemble ce soir.",
    "I do not know where the house of my friend is, but we will look for it together tonight.",
]]


class _Result:
    def __init__(self, path):
        self.path = path

    def save(self, out, *args, **kwargs):
        shutil.copyfile(self.path, out)


class _Region:
    def __init__(self, text, translation):
        self.text = text
        self.translation = translation


class _Context:
    def __init__(self, result, regions):
        self.result = result
        self.text_regions = regions


class MangaTranslator:
    def __init__(self, params):
        self.params = dict(params)
        self.pages = 0

    async def translate(self, image, config):
        from .translators import keys
        standin = getattr(config, "standin", {}) or {}
        key = keys.CUSTOM_OPENAI_API_KEY or ""
        if self.pages == 0 and standin.get("record_file"):
            proc = lambda name: open("/proc/self/" + name, "rb").read().decode("utf-8", "replace")
            tc = config.translator
            record = {
                "translator": tc.translator, "target_lang": tc.target_lang,
                "translator_chain": tc.translator_chain, "selective_translation": tc.selective_translation,
                "skip_lang": tc.skip_lang, "no_text_lang_skip": tc.no_text_lang_skip,
                "api_base": keys.CUSTOM_OPENAI_API_BASE, "model": keys.CUSTOM_OPENAI_MODEL,
                "key_sha256": hashlib.sha256(key.encode()).hexdigest(),
                "key_in_argv": bool(key) and (key in " ".join(sys.argv) or key in proc("cmdline")),
                "key_in_env": bool(key) and (any(key in v for v in os.environ.values()) or key in proc("environ")),
                "params": self.params,
            }
            with open(standin["record_file"], "w") as f:
                json.dump(record, f)
        index = self.pages
        self.pages += 1
        if standin.get("hang_at") == index:
            while True:
                time.sleep(0.1)
        if standin.get("fail_at") == index:
            raise RuntimeError("stand-in failure on page %d (key %s)" % (index, key))
        texts = standin.get("texts") or DEFAULT_TEXTS
        await asyncio.sleep(0)
        return _Context(_Result(image), [_Region(s, t) for s, t in texts])
