"""Like the real engine's keys module, read from the environment at import (the adapter overrides them in-process)."""
import os

CUSTOM_OPENAI_API_KEY = os.getenv("CUSTOM_OPENAI_API_KEY", "")
CUSTOM_OPENAI_API_BASE = os.getenv("CUSTOM_OPENAI_API_BASE", "http://localhost:11434/v1")
CUSTOM_OPENAI_MODEL = os.getenv("CUSTOM_OPENAI_MODEL", "")
