"""The stand-in's Config: the fields the adapter touches, plus whatever else the configuration holds."""


class TranslatorConfig:
    def __init__(self, **kw):
        self.translator = kw.get("translator", "sugoi")
        self.target_lang = kw.get("target_lang", "ENG")
        self.translator_chain = kw.get("translator_chain")
        self.selective_translation = kw.get("selective_translation")
        self.skip_lang = kw.get("skip_lang")
        self.no_text_lang_skip = kw.get("no_text_lang_skip", False)
        self._translator_gen = None


class Config:
    def __init__(self, **kw):
        self.translator = TranslatorConfig(**(kw.pop("translator", None) or {}))
        for k, v in kw.items():
            setattr(self, k, v)
