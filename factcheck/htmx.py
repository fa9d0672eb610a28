"""
What every page does for htmx.

A page answers an htmx request with a fragment at the same address as the
whole page (a filter, a page of results, a search pushed into the history
with ``hx-push-url``). ``Vary: HX-Request`` keeps the browser's cache from
handing that fragment, alone and unstyled, to a plain visit of the address,
such as the Back button's.
"""

from django.utils.cache import patch_vary_headers


class VaryOnHtmxMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        patch_vary_headers(response, ("HX-Request",))
        return response
