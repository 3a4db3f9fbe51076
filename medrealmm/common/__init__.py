"""Neutral helpers shared by several phases: usable cores, LLM JSON reading, tables as text, the figure style and its
CJK font. Nothing here imports a phase package, so every phase may import from here."""

#: The public modules (imported by name: ``from medrealmm.common.<module> import ...``); loading the package
#: imports none of them, so a light caller never pays for a heavy one.
__all__ = ["cores", "fonts", "llm_json", "plotting", "tables"]
