"""Capabilities: a client asks a driver what it supports, by class or by duck typing."""
from __future__ import annotations

import pytest

from mcs_reference import (
    BaseDriver,
    DriverMeta,
    ExtractionChain,
    HermesCodec,
    JsonCodec,
    LLMStreamBuffer,
    OpenAIChatStrategy,
    SupportsNativeTools,
    SupportsStreaming,
    TextStrategy,
)
from mcs_reference.capabilities import Capability


class DuckNative:
    """Never inherits a capability; has the member SupportsNativeTools declares."""

    backup_text_strategy = None


class DuckStreaming:
    extraction_strategies = ()

    def new_stream_buffer(self):
        return LLMStreamBuffer([OpenAIChatStrategy()])


class Broken:
    """A member that raises is not a usable member."""

    @property
    def backup_text_strategy(self):
        raise RuntimeError("not configured")


def test_base_driver_provides_both_capabilities_and_is_returned_itself():
    driver = BaseDriver()
    assert DriverMeta.resolve_capability(driver, SupportsNativeTools) is driver
    assert DriverMeta.resolve_capability(driver, SupportsStreaming) is driver
    assert isinstance(driver, SupportsNativeTools)
    assert isinstance(driver, SupportsStreaming)
    assert DriverMeta.capabilities_of(driver) == [SupportsNativeTools, SupportsStreaming]


def test_duck_typed_drivers_are_resolved_by_their_members():
    native, streaming = DuckNative(), DuckStreaming()
    assert DriverMeta.resolve_capability(native, SupportsNativeTools) is native
    assert DriverMeta.resolve_capability(native, SupportsStreaming) is None
    assert DriverMeta.resolve_capability(streaming, SupportsStreaming) is streaming
    assert DriverMeta.resolve_capability(streaming, SupportsNativeTools) is None
    assert DriverMeta.capabilities_of(streaming) == [SupportsStreaming]


def test_objects_without_the_members_do_not_provide_a_capability():
    assert DriverMeta.resolve_capability(object(), SupportsNativeTools) is None
    assert DriverMeta.resolve_capability(object(), SupportsStreaming) is None
    assert DriverMeta.resolve_capability(Broken(), SupportsNativeTools) is None
    half = DuckStreaming()
    del DuckStreaming.extraction_strategies
    try:
        assert DriverMeta.resolve_capability(half, SupportsStreaming) is None
    finally:
        DuckStreaming.extraction_strategies = ()


@pytest.mark.parametrize("bad", ["SupportsStreaming", 3, None, dict, object, Capability])
def test_a_non_capability_is_a_type_error_with_a_clear_message(bad):
    with pytest.raises(TypeError, match="capability"):
        DriverMeta.resolve_capability(BaseDriver(), bad)


def test_a_custom_capability_is_accepted():
    class SupportsCancel(Capability):
        members = ("cancel",)

    class Cancellable:
        def cancel(self):
            return True

    thing = Cancellable()
    assert DriverMeta.resolve_capability(thing, SupportsCancel) is thing
    assert DriverMeta.resolve_capability(BaseDriver(), SupportsCancel) is None


def test_streaming_members_use_the_drivers_chain():
    chain = ExtractionChain([OpenAIChatStrategy(), TextStrategy(JsonCodec())])
    driver = BaseDriver(chain=chain)
    assert driver.extraction_strategies is chain
    buf = driver.new_stream_buffer()
    assert isinstance(buf, LLMStreamBuffer)
    assert buf.chain is chain
    assert driver.new_stream_buffer() is not buf  # a fresh buffer each time


def test_default_backup_is_the_json_text_strategy():
    backup = BaseDriver().backup_text_strategy
    assert isinstance(backup, TextStrategy)
    assert isinstance(backup.codec, JsonCodec)


def test_a_driver_turns_the_fall_through_off_with_none():
    class NoFallThrough(BaseDriver):
        backup_text_strategy = None

    assert NoFallThrough().backup_text_strategy is None
    driver = BaseDriver()
    driver.backup_text_strategy = None
    assert driver.backup_text_strategy is None
    # Still a SupportsNativeTools driver: it declares its (absent) backup.
    assert DriverMeta.resolve_capability(NoFallThrough(), SupportsNativeTools) is not None


def test_a_subclass_may_choose_another_backup():
    hermes = TextStrategy(HermesCodec())

    class HermesDriver(BaseDriver):
        backup_text_strategy = hermes

    assert HermesDriver().backup_text_strategy is hermes
