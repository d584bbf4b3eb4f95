"""The model table and what listModels offers for a given environment."""

from __future__ import annotations

from cardchat import providers
from cardchat.llm.models import KEY_NAMES, MODELS, OFFLINE_MODEL_ID, available_models, default_model_id, key_present


def ids(env: dict[str, str]) -> set[str]:
    return {m.id for m in available_models(env)}


def test_no_keys_offers_only_the_offline_answerer():
    assert ids({}) == {OFFLINE_MODEL_ID}
    assert default_model_id({}) == OFFLINE_MODEL_ID


def test_each_key_unlocks_exactly_its_providers_models():
    for key in KEY_NAMES:
        offered = ids({key: "k-123"})
        expected = {m.id for m in MODELS.values() if m.key_env in (key, None)}
        assert offered == expected
        assert OFFLINE_MODEL_ID in offered
        assert any(MODELS[i].key_env == key for i in offered)


def test_blank_key_counts_as_missing_and_default_prefers_a_keyed_model():
    env = {"ANTHROPIC_API_KEY": "  ", "GEMINI_API_KEY": "AIza-real"}
    assert ids(env) == {OFFLINE_MODEL_ID} | {m.id for m in MODELS.values() if m.provider == "gemini"}
    assert MODELS[default_model_id(env)].provider == "gemini"
    assert not key_present(MODELS["claude-sonnet-4-6"], env)


def test_public_view_hides_key_names():
    for spec in MODELS.values():
        public = spec.public()
        assert "key_env" not in public
        assert public["offline"] is (spec.key_env is None)
        assert not any(isinstance(v, str) and v.endswith("_API_KEY") for v in public.values())


def test_every_model_has_a_provider_and_a_sane_budget():
    for spec in MODELS.values():
        assert spec.provider in providers.PROVIDERS
        assert 0 < spec.max_output_tokens < spec.context_window
        assert spec.tokenizer in ("o200k_base", "cl100k_base", "estimate-claude", "estimate-gemini")
    assert MODELS[OFFLINE_MODEL_ID].provider == "offline"
    assert "no model key" in MODELS[OFFLINE_MODEL_ID].label


def test_unknown_model_is_refused_and_not_asked_again():
    try:
        list(providers.stream("gpt-nonexistent", [{"role": "user", "content": "hi"}], ""))
    except providers.ProviderError as e:
        assert e.kind == "unknown_model" and not e.retryable
        assert e.message == "This chat's model is not available"
    else:
        raise AssertionError("an unknown model must be refused")
