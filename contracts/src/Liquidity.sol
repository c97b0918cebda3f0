// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

interface IUniswapV2Router02Min {
    function factory() external view returns (address);
    function WETH() external view returns (address);
    function addLiquidityETH(
        address token,
        uint256 amountTokenDesired,
        uint256 amountTokenMin,
        uint256 amountETHMin,
        address to,
        uint256 deadline
    ) external payable returns (uint256 amountToken, uint256 amountETH, uint256 liquidity);
}

interface IUniswapV2FactoryMin {
    function getPair(address a, address b) external view returns (address);
    function createPair(address a, address b) external returns (address);
}

interface IUniswapV2PairMin {
    function getReserves() external view returns (uint112, uint112, uint32);
    function mint(address to) external returns (uint256);
}

interface IWETHMin {
    function deposit() external payable;
    function transfer(address to, uint256 value) external returns (bool);
}

/// @notice Seeds a token/WBNB Uniswap V2 pair with all of `tokenAmount` and `bnbAmount`, LP burned.
library Liquidity {
    address internal constant DEAD = 0x000000000000000000000000000000000000dEaD;

    /// @dev Normal path: the router's addLiquidityETH. If someone created the pair and synced a
    /// WBNB donation into its reserves (tokens cannot reach the pair before graduation), the router
    /// would revert on quote(0 reserve); then mint directly so graduation can never be blocked.
    function seed(address router, address token, uint256 tokenAmount, uint256 bnbAmount)
        internal
        returns (address pair, uint256 liquidity)
    {
        address factory = IUniswapV2Router02Min(router).factory();
        address weth = IUniswapV2Router02Min(router).WETH();
        pair = IUniswapV2FactoryMin(factory).getPair(token, weth);
        bool dirty;
        if (pair != address(0)) {
            (uint112 r0, uint112 r1,) = IUniswapV2PairMin(pair).getReserves();
            dirty = r0 != 0 || r1 != 0;
        }
        if (!dirty) {
            IERC20(token).approve(router, tokenAmount);
            (,, liquidity) = IUniswapV2Router02Min(router).addLiquidityETH{value: bnbAmount}(
                token, tokenAmount, tokenAmount, bnbAmount, DEAD, block.timestamp
            );
            if (pair == address(0)) pair = IUniswapV2FactoryMin(factory).getPair(token, weth);
        } else {
            IWETHMin(weth).deposit{value: bnbAmount}();
            IWETHMin(weth).transfer(pair, bnbAmount);
            IERC20(token).transfer(pair, tokenAmount);
            liquidity = IUniswapV2PairMin(pair).mint(DEAD);
        }
    }
}
