"""The Cloud Functions, by concern; functions/main.py re-exports them, where Firebase finds them."""
