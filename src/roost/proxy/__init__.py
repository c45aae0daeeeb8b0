"""`roost proxy`: an HTTPS forward proxy that sends the platform's hosts to roost, for programs in
any language (curl, Node, Java, Go, …) that honour a proxy and trust its local CA."""

from roost.proxy.authority import CertificateAuthority
from roost.proxy.server import INTERCEPTED_HOSTS, ProxyServer

__all__ = ["INTERCEPTED_HOSTS", "CertificateAuthority", "ProxyServer"]
