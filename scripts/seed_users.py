"""Creates the demo accounts in the Auth emulator (idempotent)."""

import os

import firebase_admin
from firebase_admin import auth, credentials
from google.auth.credentials import AnonymousCredentials

assert os.environ.get("FIREBASE_AUTH_EMULATOR_HOST"), "only for the Auth emulator"


class _Anonymous(credentials.Base):
    def get_credential(self):
        return AnonymousCredentials()


firebase_admin.initialize_app(_Anonymous(), {"projectId": os.environ["GCLOUD_PROJECT"]})
USERS = [
    ("demo-user", os.environ["CARDCHAT_DEMO_EMAIL"], os.environ["CARDCHAT_DEMO_PASSWORD"], "Demo User"),
    ("other-user", "other@cardchat.test", "cardchat-other", "Other User"),
]
for uid, email, password, name in USERS:
    try:
        auth.get_user(uid)
        auth.update_user(uid, email=email, password=password, display_name=name)
    except auth.UserNotFoundError:
        auth.create_user(uid=uid, email=email, password=password, display_name=name)
    print(f"user {uid} <{email}>")
