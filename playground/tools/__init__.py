"""The tool library: definitions, the editor, import and export, and how calls are answered and checked.

The answering and checking modules (``builtins``, ``canned``, ``config``, ``results``, ``schema``) are pure Python
with no Django import, so the tool loop can be tested alone.
"""
