// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {TaxRewards} from "./TaxRewards.sol";

/// @notice Constructor parameters of a TaxToken (one struct so CREATE2 prediction hashes one blob).
struct TaxTokenParams {
    string name;
    string symbol;
    uint256 totalSupply;
    /// Receives the whole supply, owns the token (`setMode`) and is never taxed.
    address manager;
    /// Uniswap V2 router the collected tax is swapped through; its factory and WETH name the pair.
    address router;
    bytes32 pairInitCodeHash;
    /// Tax on pair buys, basis points (four.meme type 5: `amount * feeRate / 10000`).
    uint256 feeRate;
    /// Tax on pair sells, basis points; four.meme type 5 has one rate (equal to `feeRate`).
    uint256 sellFeeRate;
    /// four.meme `recipientAddress`: receives `rateFounder`% of each dispatch, in BNB.
    address founder;
    /// Allocation percentages (four.meme recipientRate / divideRate / burnRate / liquidityRate), sum 100.
    uint256 rateFounder;
    uint256 rateHolder;
    uint256 rateBurn;
    uint256 rateLiquidity;
    /// Tokens the tax must have accumulated before a dispatch runs.
    uint256 minDispatch;
    /// Balance (token wei) an account needs to share the holder allocation (four.meme minSharing).
    uint256 minShare;
}

/// @title TaxToken (four.meme TaxToken, creator type 5, devnet)
/// @notice The public surface of four.meme's classic TaxToken (fourmeme-docs abi/TaxToken.lite.json):
/// modes, allocation getters, holder reward accounting, `claimFee`, `FeeDispatched` and `FeeClaimed`.
/// Charging: no tax while the token is on the curve; once its manager sets `MODE_NORMAL` at
/// graduation, `feeRate` of every pair buy and sell (the manager excepted) is kept by the token.
/// The accumulated tax is dispatched at the next sell or ordinary transfer (never inside a buy:
/// the pair is locked then): the burn share goes to 0xdEaD, the liquidity share is added to the
/// pair (half swapped, LP to 0xdEaD), the founder and holder shares are swapped to BNB; the
/// founder's BNB is sent at once, the holders' is wrapped and claimed in WBNB.
contract TaxToken is ERC20, TaxRewards {
    uint256 public constant MODE_NORMAL = 0;
    uint256 public constant MODE_TRANSFER_RESTRICTED = 1;
    uint256 public constant MODE_TRANSFER_CONTROLLED = 2;
    uint256 public constant MAX_FEE_RATE = 1000;
    address internal constant DEAD = 0x000000000000000000000000000000000000dEaD;

    address internal immutable _manager;
    address internal immutable _router;
    address internal immutable _pairAddress;
    uint256 public immutable feeRate;
    uint256 public immutable sellFeeRate;
    address public immutable founder;
    uint256 public immutable rateFounder;
    uint256 public immutable rateBurn;
    uint256 public immutable rateLiquidity;
    uint256 public immutable minDispatch;

    uint256 public _mode = MODE_TRANSFER_CONTROLLED;
    /// The Uniswap V2 pair with WBNB, set when the mode becomes NORMAL (graduation).
    address public pair;
    /// Tax kept by the token, in tokens, not dispatched yet.
    uint256 public tokenAccumulated;
    uint256 public feeDispatched;
    uint256 public feeFounder;
    /// BNB owed to the founder whose transfer failed; retried at the next dispatch.
    uint256 public feeToFounder;
    bool internal _swapping;

    /// @notice One dispatch: token amounts per allocation, then the BNB the founder and holders got.
    event FeeDispatched(
        uint256 amountFounder,
        uint256 amountHolder,
        uint256 amountBurn,
        uint256 amountLiquidity,
        uint256 quoteFounder,
        uint256 quoteHolder
    );

    error BadTerms();
    error OnlyOwner();
    error TransferRestricted();
    error PairLocked();

    constructor(TaxTokenParams memory p)
        ERC20(p.name, p.symbol)
        TaxRewards(IRouter(p.router).WETH(), p.rateHolder, p.minShare)
    {
        if (p.feeRate > MAX_FEE_RATE || p.sellFeeRate > MAX_FEE_RATE) revert BadTerms();
        if (p.rateFounder + p.rateHolder + p.rateBurn + p.rateLiquidity != 100) revert BadTerms();
        if ((p.founder == address(0)) != (p.rateFounder == 0)) revert BadTerms();
        _manager = p.manager;
        _router = p.router;
        feeRate = p.feeRate;
        sellFeeRate = p.sellFeeRate;
        founder = p.founder;
        rateFounder = p.rateFounder;
        rateBurn = p.rateBurn;
        rateLiquidity = p.rateLiquidity;
        minDispatch = p.minDispatch;
        address wbnb = IRouter(p.router).WETH();
        (address t0, address t1) = address(this) < wbnb ? (address(this), wbnb) : (wbnb, address(this));
        bytes32 salt = keccak256(abi.encodePacked(t0, t1));
        address factory = IRouter(p.router).factory();
        _pairAddress = address(
            uint160(uint256(keccak256(abi.encodePacked(hex"ff", factory, salt, p.pairInitCodeHash))))
        );
        _mint(p.manager, p.totalSupply);
    }

    receive() external payable {}

    /// @notice The manager (TokenManager2 or a launch vault) owns the token.
    function owner() public view returns (address) {
        return _manager;
    }

    /// @notice Owner only; once NORMAL (set at graduation) the mode never changes again.
    function setMode(uint256 v) external {
        if (msg.sender != _manager) revert OnlyOwner();
        if (_mode == MODE_NORMAL) return;
        _mode = v;
        if (v == MODE_NORMAL) pair = _pairAddress;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (_mode != MODE_NORMAL) {
            if (_mode == MODE_TRANSFER_RESTRICTED && from != address(0)) revert TransferRestricted();
            // Controlled (the curve): only the owner may put tokens into the pair, so nobody can
            // seed it at a price of their choosing before graduation.
            if (to == _pairAddress && from != _manager) revert PairLocked();
            super._update(from, to, value);
            _afterMove(from, to);
            return;
        }
        address p = _pairAddress;
        bool exempt = _swapping || from == _manager || to == _manager;
        if (!exempt && to == p) _dispatch();
        uint256 rate = exempt ? 0 : from == p ? feeRate : to == p ? sellFeeRate : 0;
        uint256 fee = (value * rate) / 10_000;
        if (fee > 0) {
            super._update(from, address(this), fee);
            tokenAccumulated += fee;
        }
        super._update(from, to, value - fee);
        _afterMove(from, to);
        if (!exempt && from != p && to != p && from != address(0) && to != address(0)) {
            _dispatch();
            _claim(from);
        }
    }

    function _afterMove(address from, address to) internal {
        _updateShare(from);
        if (to != from) _updateShare(to);
    }

    function _isShareHolder(address a) internal view override returns (bool) {
        return a != _pairAddress && a != _manager && a != address(this) && a != address(0) && a != DEAD;
    }

    function _shareOf(address a) internal view override returns (uint256) {
        return balanceOf(a);
    }

    /// @notice Runs a dispatch now if enough tax has accumulated (anyone; the token also does it itself).
    function dispatchFee() external {
        if (_mode == MODE_NORMAL && !_swapping) _dispatch();
    }

    function _dispatch() internal {
        uint256 total = tokenAccumulated;
        if (total == 0 || total < minDispatch) return;
        uint256 rHolder = totalShares > 0 ? rateHolder : 0;
        uint256 rTotal = rateFounder + rHolder + rateBurn + rateLiquidity;
        // Only holders are allocated and none holds a share yet: keep accumulating.
        if (rTotal == 0) return;
        uint256 aFounder = (total * rateFounder) / rTotal;
        uint256 aHolder = (total * rHolder) / rTotal;
        uint256 aBurn = (total * rateBurn) / rTotal;
        uint256 aLiquidity = (total * rateLiquidity) / rTotal;
        uint256 liqSwap = aLiquidity / 2;
        uint256 toSwap = aFounder + aHolder + liqSwap;
        uint256 bnb;
        if (toSwap > 0) {
            bool ok;
            (ok, bnb) = _swapForBnb(toSwap);
            // The pool cannot take it now (too small an amount, no liquidity): try again later.
            if (!ok) return;
        }
        tokenAccumulated = total - aFounder - aHolder - aBurn - aLiquidity;
        // The BNB of one swap, shared pro rata; the rounding goes to the liquidity share.
        uint256 qFounder = toSwap == 0 ? 0 : (bnb * aFounder) / toSwap;
        uint256 qHolder = toSwap == 0 ? 0 : (bnb * aHolder) / toSwap;
        if (aBurn > 0) super._update(address(this), DEAD, aBurn);
        if (aLiquidity > 0) _addLiquidity(aLiquidity - liqSwap, bnb - qFounder - qHolder);
        if (qHolder > 0) _accrue(qHolder);
        feeDispatched += aFounder + aHolder + aBurn + aLiquidity;
        feeToFounder += qFounder;
        _payFounder();
        emit FeeDispatched(aFounder, aHolder, aBurn, aLiquidity, qFounder, qHolder);
    }

    /// @notice The tax kept by the token and not dispatched yet (in tokens).
    function feeAccumulated() external view returns (uint256) {
        return tokenAccumulated;
    }

    function _payFounder() internal {
        uint256 owed = feeToFounder;
        if (owed == 0) return;
        feeToFounder = 0;
        (bool ok,) = payable(founder).call{value: owed}("");
        if (ok) feeFounder += owed;
        else feeToFounder = owed;
    }

    /// @dev Through the router to BNB: a pair cannot pay out to one of its own tokens.
    function _swapForBnb(uint256 amount) internal returns (bool ok, uint256 out) {
        _swapping = true;
        _approve(address(this), _router, amount);
        address[] memory path = new address[](2);
        (path[0], path[1]) = (address(this), quote);
        uint256 before = address(this).balance;
        try IRouter(_router).swapExactTokensForETHSupportingFeeOnTransferTokens(
            amount, 0, path, address(this), block.timestamp
        ) {
            ok = true;
            out = address(this).balance - before;
        } catch {
            _approve(address(this), _router, 0);
        }
        _swapping = false;
    }

    /// @dev Both sides straight into the pair, LP to 0xdEaD; an uneven ratio stays in the pool.
    function _addLiquidity(uint256 tokens, uint256 bnb) internal {
        _swapping = true;
        if (bnb > 0) {
            IWBNB(quote).deposit{value: bnb}();
            IERC20(quote).transfer(_pairAddress, bnb);
        }
        if (tokens > 0) super._update(address(this), _pairAddress, tokens);
        if (tokens > 0 && bnb > 0) IPair(_pairAddress).mint(DEAD);
        else IPair(_pairAddress).sync();
        _swapping = false;
    }

    function _wrap(uint256 amount) internal override {
        IWBNB(quote).deposit{value: amount}();
    }
}

interface IRouter {
    function factory() external view returns (address);
    function WETH() external view returns (address);
    function swapExactTokensForETHSupportingFeeOnTransferTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external;
}

interface IWBNB {
    function deposit() external payable;
}

interface IPair {
    function mint(address to) external returns (uint256);
    function sync() external;
}
