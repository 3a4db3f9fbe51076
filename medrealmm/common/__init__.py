"""Neutral helpers shared by several phases: LLM JSON reading, tables as text, the figure style and its
CJK font. Nothing here imports a phase package, so every phase may import from here."""
