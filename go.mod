module github.com/claude-nova/claude-nova.nvim

go 1.24

require (
	github.com/hexops/gotextdiff v1.0.3
	github.com/kballard/go-shellquote v0.0.0-20180428030007-95032a82bc51
	github.com/neovim/go-client v1.2.1
)
