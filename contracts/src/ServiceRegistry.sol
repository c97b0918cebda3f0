// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title ServiceRegistry
/// @notice Names the tokens launched through the service, so the indexer can follow exactly those
/// tokens (a Ponder factory on `ServiceTokenRegistered.token`) without subscribing to every token
/// of the launchpad. The launch saga registers a token BEFORE creating it, with its predicted
/// CREATE2 address and the CREATE2 address of its DEX pair, so the token's mint is already indexed.
contract ServiceRegistry is Ownable {
    struct Entry {
        address pair;
        address creator;
        address treasury;
        uint256 agentId;
        uint64 registeredAt;
    }

    event ServiceTokenRegistered(
        address indexed token, address indexed pair, address indexed creator, address treasury, uint256 agentId
    );
    event RegistrarSet(address indexed registrar);

    error NotRegistrar();
    error AlreadyRegistered();
    error ZeroAddress();

    address public registrar;
    mapping(address token => Entry) public entries;
    uint256 public tokenCount;

    constructor(address registrar_) Ownable(msg.sender) {
        registrar = registrar_;
        emit RegistrarSet(registrar_);
    }

    function setRegistrar(address registrar_) external onlyOwner {
        registrar = registrar_;
        emit RegistrarSet(registrar_);
    }

    function registerToken(address token, address pair, address creator, address treasury, uint256 agentId)
        external
    {
        if (msg.sender != registrar) revert NotRegistrar();
        if (token == address(0) || pair == address(0) || creator == address(0)) revert ZeroAddress();
        if (entries[token].creator != address(0)) revert AlreadyRegistered();
        entries[token] = Entry(pair, creator, treasury, agentId, uint64(block.timestamp));
        tokenCount++;
        emit ServiceTokenRegistered(token, pair, creator, treasury, agentId);
    }

    function isRegistered(address token) external view returns (bool) {
        return entries[token].creator != address(0);
    }
}
