call remote#host#RegisterPlugin('claudenova', '0', [
\ {'type': 'function', 'name': 'ClaudeNovaNotify', 'sync': 0, 'opts': {}},
\ {'type': 'function', 'name': 'ClaudeNovaRequest', 'sync': 1, 'opts': {}},
\ ])
