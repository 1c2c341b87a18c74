"""The keys of a browser environment (docs/environment.md), wherever one is written: viewport,
device, locale, timezone, color scheme, geolocation."""

from __future__ import annotations

import functools
import re
from typing import Annotated, ClassVar, Literal, Optional

from pydantic import AfterValidator, Field

from flowwalk.spec.models.fields import LOCALE_PATTERN, Strict, fail, quote
from flowwalk.spec.spelling import did_you_mean

VIEWPORT_MIN, VIEWPORT_MAX = 100, 10_000
_LOCALE = re.compile(LOCALE_PATTERN)


def _check_locale(value: str) -> str:
    if not _LOCALE.match(value):
        raise fail(f"locale {quote(value)} is not a language tag",
                   "write a BCP 47 tag: a language, then optionally a region, e.g. 'en-GB', 'fr-FR' or 'de'")
    return value


@functools.lru_cache(maxsize=1)
def _timezones() -> frozenset[str]:
    import zoneinfo

    return frozenset(zoneinfo.available_timezones())


def _check_timezone(value: str) -> str:
    known = _timezones()
    if known and value not in known:
        guess = did_you_mean(value, sorted(known))
        raise fail(f"timezone {quote(value)} is not an IANA time zone",
                   (f"did you mean '{guess}'? " if guess else "") +
                   "write an IANA id, e.g. 'Europe/Paris', 'America/New_York' or 'UTC'")
    return value


def _check_device(value: str) -> str:
    from flowwalk.environment import device_names

    names = device_names()
    if value not in names:
        guess = did_you_mean(value, names)
        raise fail(f"unknown device {quote(value)}",
                   (f"did you mean '{guess}'? " if guess else "") +
                   "a device is one of Playwright's device descriptors by name, e.g. 'iPhone 13', "
                   "'Pixel 7', 'iPad Mini', 'Desktop Chrome' (docs/environment.md lists where to find them all)")
    return value


ColorScheme = Literal["light", "dark", "no-preference"]
Locale = Annotated[str, Field(min_length=2, max_length=35, json_schema_extra={"pattern": LOCALE_PATTERN}),
                   AfterValidator(_check_locale)]
Timezone = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_check_timezone)]
DeviceName = Annotated[str, Field(min_length=1, max_length=80), AfterValidator(_check_device)]


class ViewportModel(Strict):
    LABEL: ClassVar[str] = "viewport"
    width: Annotated[int, Field(ge=VIEWPORT_MIN, le=VIEWPORT_MAX)]
    height: Annotated[int, Field(ge=VIEWPORT_MIN, le=VIEWPORT_MAX)]


class GeolocationModel(Strict):
    LABEL: ClassVar[str] = "geolocation"
    latitude: Annotated[float, Field(ge=-90, le=90)]
    longitude: Annotated[float, Field(ge=-180, le=180)]
    #: metres
    accuracy: Annotated[float, Field(ge=0, le=100_000)] = 0


class EnvironmentKeys(Strict):
    """The keys of an environment, wherever one is written: a flow's top level (v1.x), a rule file's
    scenario, flowwalk.yaml's top level, a project. Problems list them after a model's own keys."""

    viewport: Optional[ViewportModel] = None
    device: Optional[DeviceName] = None
    locale: Optional[Locale] = None
    timezone: Optional[Timezone] = None
    color_scheme: Optional[ColorScheme] = None
    geolocation: Optional[GeolocationModel] = None


ENVIRONMENT_KEYS = tuple(EnvironmentKeys.model_fields)
