"""Platform adapters: each turns a platform's updates into engine calls and engine results
into that platform's messages."""
